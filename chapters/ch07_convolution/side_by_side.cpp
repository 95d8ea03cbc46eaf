// ch07_convolution: every chapter-7 stage on the same problem, side by side, after the text's analysis.
#include <cstdio>
#include <iostream>

#include "ch07_convolution/runner.hpp"
#include "pmpp/program.hpp"

using namespace pmpp;
using namespace pmpp::ch07;

int main(int argc, char** argv) {
  const char* program = "ch07_convolution";
  return guarded_main(program, [&] {
    Options options;
    Cli cli(program, "Chapter 7, convolution: the text's analysis (Fig 7.14), then every stage on one problem, "
                     "checked against the CPU reference and timed side by side.");
    add_options(cli, options);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options);

    std::vector<const Stage*> all;
    for (const Stage& s : stages()) all.push_back(&s);
    std::printf("%s\n\nThe text's Fig 7.14: arithmetic intensity of the tiled kernel against tile size\n", program);
    const Table fig = fig_7_14_table();
    fig.print(std::cout);
    std::printf("\nThe text's model for each stage, radius %d:\n", options.radius);
    const Table intensity = intensity_table(all, options);
    intensity.print(std::cout);
    if (options.analysis_only) return int{kExitPass};
    std::printf("\n");
    if (!gpu_or_explain(program)) return int{kExitNoGpu};

    const DeviceInfo device = query_device();
    std::printf("device:  %s\nproblem: ", describe(device).c_str());
    Problem problem(options);
    std::printf("%s\n\n", problem.describe().c_str());

    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<StageMeasurement> runs;
    bool all_passed = true;
    for (const Stage* stage : all) {
      if (options.radius > stage->max_radius) continue;
      const CheckResult check = problem.check(*stage);
      std::printf("%-22s %s\n", stage->id, check.summary().c_str());
      StageMeasurement run{stage, {}, {}, check.ok()};
      if (check.ok()) run.config = problem.time(*stage, timer, run.timing);
      all_passed = all_passed && check.ok();
      runs.push_back(run);
    }
    std::printf("\n");
    const Table results = results_table(runs, options, device);
    results.print(std::cout);
    if (!options.json.empty())
      write_run_json(options.json, program, device.name, command_line(argc, argv),
                     {{"results", &results}, {"model", &intensity}, {"fig_7_14", &fig}});
    return int{all_passed ? kExitPass : kExitCheckFailed};
  });
}
