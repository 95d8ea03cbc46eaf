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
    Options options;
    Cli cli(program, std::string("Chapter 7 stage ") + stage.id + ": " + stage.title + " (PMPP " + stage.figure +
                         "). Checks the GPU result against the CPU reference, times it, and prints the text's "
                         "analysis next to the measurement.");
    add_options(cli, options);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options);

    std::printf("%s: %s (PMPP %s)\n\n", program.c_str(), stage.title, stage.figure);
    std::printf("The text's analysis for this stage:\n");
    intensity_table({&stage}, options).print(std::cout);
    if (options.analysis_only) return int{kExitPass};
    std::printf("\n");
    if (!gpu_or_explain(program.c_str())) return int{kExitNoGpu};

    const DeviceInfo device = query_device();
    std::printf("device:  %s\n", describe(device).c_str());
    Problem problem(options);
    std::printf("problem: %s\n", problem.describe().c_str());

    const std::string id = stage.id;
    if (id == "01_basic") {  // the first stage also proves its hand-written host round trip
      const CheckResult round_trip = problem.check_round_trip();
      std::printf("check (host round trip):  %s\n", round_trip.summary().c_str());
      if (!round_trip.ok()) return int{kExitCheckFailed};
    }
    const CheckResult check = problem.check(stage);
    std::printf("check (device buffers):   %s\n\n", check.summary().c_str());

    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    StageMeasurement run{&stage, {}, {}, check.ok()};
    if (check.ok()) run.config = problem.time(stage, timer, run.timing);
    const Table table = results_table({run}, options, device);
    table.print(std::cout);
    if (!options.json.empty())
      write_run_json(options.json, program, device.name, command_line(argc, argv), {{"results", &table}});
    return int{check.ok() ? kExitPass : kExitCheckFailed};
  });
}
