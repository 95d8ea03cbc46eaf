// main() of one chapter-10 stage program (built once per stage with PMPP_STAGE_ID, e.g. "01_simple").
#include <cstdio>
#include <iostream>

#include "ch10_reduction/runner.hpp"
#include "pmpp/empty_launch.hpp"
#include "pmpp/program.hpp"

using namespace pmpp;
using namespace pmpp::ch10;

int main(int argc, char** argv) {
  const std::string program = std::string("ch10_") + PMPP_STAGE_ID;
  return guarded_main(program.c_str(), [&] {
    const Stage& stage = *find_stage(PMPP_STAGE_ID);
    Options options;
    options.n = stage.default_n;
    Cli cli(program, std::string("Chapter 10 stage ") + stage.id + ": " + stage.title + " (PMPP " + stage.figure +
                         "). Checks the GPU result against the CPU reference, times it, and prints the text's "
                         "analysis next to what an instrumented build of the kernel counted on the GPU.");
    add_options(cli, options, stage.traceable);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options, &stage);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));

    std::printf("%s: %s (PMPP %s)\n\n", program.c_str(), stage.title, stage.figure);
    std::printf("The text's analysis for n = %zu (launch planned for a %d-SM GPU):\n", options.n, GpuShape{}.sm_count);
    const Table predicted = analysis_table(stage, options.n, stage.plan(options.n, GpuShape{}), std::nullopt);
    predicted.print(std::cout);
    if (!options.analysis_only) std::printf("\n");
    if (options.analysis_only || !gpu_or_explain(program.c_str())) {
      record.add("analysis", std::string("The text's analysis of ") + stage.id, predicted);
      return record.finish(options.analysis_only ? kExitPass : kExitNoGpu);
    }

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    std::printf("device:  %s\n", device.summary().c_str());
    Problem problem(options);
    std::printf("problem: %s\n\n", problem.describe().c_str());

    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    const Measurement run = run_stage(problem, stage, timer);
    std::printf("launch:  %s\ncheck:   %s\n\n", run.check.config.to_string().c_str(), run.check.summary().c_str());
    const Timing empty_launch = timer.time(launch_empty_kernel);  // the fixed cost in the limit row
    const ReadLimit read_limit = problem.read_limit(timer);         // what DRAM delivers, measured
    const Table results = results_table({run}, options.n, device, nullptr, &empty_launch, &read_limit);
    results.print(std::cout);
    record.add("results", std::string("Stage ") + stage.id, results);
    if (!run.check.ok) return record.finish(kExitCheckFailed);

    std::printf("\nThe text's analysis next to what the instrumented kernel counted on the GPU:\n");
    const Table analysis = analysis_table(stage, options.n, run.check.config, run.counts);
    analysis.print(std::cout);
    if (options.trace) {
      std::printf("\n");
      print_trace(stage, problem.trace(stage), problem.input());
    }
    record.add("analysis", std::string("The text's analysis of ") + stage.id + " next to what its instrumented build "
               "counted", analysis);
    return record.finish(kExitPass);
  });
}
