// main() of one chapter-7 stage program (built once per stage with PMPP_STAGE_ID, e.g. "01_basic").
#include <cstdio>
#include <iostream>

#include "ch07_convolution/runner.hpp"
#include "pmpp/program.hpp"

using namespace pmpp;
using namespace pmpp::ch07;

int main(int argc, char** argv) {
  const std::string program = std::string("ch07_") + PMPP_STAGE_ID;
  return guarded_main(program.c_str(), [&] {
    const Stage& stage = *find_stage(PMPP_STAGE_ID);
    const Stage& basic = stages().front();
    Options options;
    Cli cli(program, std::string("Chapter 7 stage ") + stage.id + ": " + stage.title + " (PMPP " + stage.figure +
                         "). Checks the GPU result against the CPU reference, times it next to stage " + basic.id +
                         ", and prints the text's analysis next to the measurement.");
    add_options(cli, options);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));

    std::printf("%s: %s (PMPP %s)\n\n", program.c_str(), stage.title, stage.figure);
    std::printf("The text's analysis for this stage:\n");
    const Table intensity = intensity_table({&stage}, options);
    intensity.print(std::cout);
    record.add("model", std::string("The text's model for ") + stage.id, intensity);
    if (options.analysis_only) return record.finish(kExitPass);
    std::printf("\n");
    if (!gpu_or_explain(program.c_str())) return record.finish(kExitNoGpu);

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    std::printf("device:  %s\n", device.summary().c_str());
    Problem problem(options);
    std::printf("problem: %s\n\n", problem.describe().c_str());

    if (&stage == &basic) {  // the first stage also proves its hand-written host round trip
      const CheckResult round_trip = problem.check_round_trip();
      std::printf("%-22s %s\n", "01_basic (round trip)", round_trip.summary().c_str());
      if (!round_trip.ok()) return record.finish(kExitCheckFailed);
    }
    // Stage 01 runs too, so that every program shows its speed-up over the text's first kernel.
    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<Measurement> runs;
    if (&stage != &basic) runs.push_back(measure(problem, basic, timer));
    runs.push_back(measure(problem, stage, timer));
    std::printf("\n");
    const Table table = results_table(runs, options, device);
    table.print(std::cout);
    record.add("results", std::string("Stage ") + stage.id + (&stage == &basic ? "" : " next to " + std::string(basic.id)),
               table);
    bool all_passed = true;
    for (const auto& run : runs) all_passed = all_passed && run.passed;
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}
