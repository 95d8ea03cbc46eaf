// ch10_reduction: every chapter-10 stage and cub::DeviceReduce on the same input, side by side, after
// the text's analysis.
#include <cstdio>
#include <iostream>

#include "ch10_reduction/runner.hpp"
#include "pmpp/empty_launch.hpp"
#include "pmpp/program.hpp"

using namespace pmpp;
using namespace pmpp::ch10;

int main(int argc, char** argv) {
  const char* program = "ch10_reduction";
  return guarded_main(program, [&] {
    Options options;
    Cli cli(program, "Chapter 10, reduction: every stage and cub::DeviceReduce on one input, checked against the CPU "
                     "reference, timed side by side, with the text's analysis next to what instrumented builds "
                     "counted on the GPU. Stages 01-03 are single-block (n <= 2048) and sit out larger inputs.");
    add_options(cli, options, false);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options, nullptr);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));

    std::vector<Measurement> planned;
    for (const Stage& s : stages()) planned.push_back({&s, unsupported(s, options), {}, {}, std::nullopt});
    std::printf("%s, n = %zu, %s\n\nThe text's analysis (launches planned for a %d-SM GPU):\n", program, options.n,
                options.op.c_str(), GpuShape{}.sm_count);
    const Table predicted = analysis_summary(planned, options.n, GpuShape{});
    predicted.print(std::cout);
    if (!options.analysis_only) std::printf("\n");
    if (options.analysis_only || !gpu_or_explain(program)) {
      record.add("analysis", "The text's analysis, counted for each stage", predicted);
      return record.finish(options.analysis_only ? kExitPass : kExitNoGpu);
    }

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    std::printf("device:  %s\n", device.summary().c_str());
    Problem problem(options);
    std::printf("problem: %s\n\n", problem.describe().c_str());

    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<Measurement> runs;
    bool all_passed = true;
    for (const Stage& stage : stages()) {
      runs.push_back(run_stage(problem, stage, timer));
      const Measurement& r = runs.back();
      std::printf("%-22s %s\n", stage.id, r.skipped.empty() ? r.check.summary().c_str() : "skipped");
      all_passed = all_passed && (!r.skipped.empty() || r.check.ok);
    }
    const Measurement cub = run_stage(problem, cub_baseline(), timer);
    std::printf("%-22s %s\n\n", "cub", cub.check.summary().c_str());
    all_passed = all_passed && cub.check.ok;
    runs.push_back(cub);

    const Timing empty_launch = timer.time(launch_empty_kernel);  // the fixed cost in the limit row
    const ReadLimit read_limit = problem.read_limit(timer);         // what DRAM delivers, measured
    const Table results = results_table(runs, options.n, device, &runs.back(), &empty_launch, &read_limit);
    results.print(std::cout);
    std::printf("\nThe text's analysis next to what the instrumented kernels counted on the GPU:\n");
    const Table analysis = analysis_summary(runs, options.n, current_gpu_shape());
    analysis.print(std::cout);
    record.add("results", "Stages side by side with CUB", results);
    record.add("analysis", "The text's analysis next to what the instrumented kernels counted", analysis);
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}
