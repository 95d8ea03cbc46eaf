// ch07_convolution: every chapter-7 stage and the cuDNN baseline on the same problem, side by side,
// after the text's analysis.
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "ch07_convolution/cudnn_baseline.hpp"
#include "ch07_convolution/runner.hpp"
#include "pmpp/program.hpp"

using namespace pmpp;
using namespace pmpp::ch07;

namespace {

/// The library row: checked against the same CPU reference and timed like a stage, or a row that
/// says why there is none.
Measurement measure_cudnn(Problem& problem, KernelTimer& timer) {
  Measurement m;
  m.name = "cuDNN";
  if (!cudnn_available()) {
    m.status = cudnn_description();
    std::printf("%-22s %s\n", "cuDNN", m.status.c_str());
    return m;
  }
  const Options& o = problem.options();
  std::unique_ptr<CudnnConvolution> conv;
  const Launch launch = [&](const Conv2dArgs& a) { conv->run(a.in, a.filter, a.out); };
  CheckResult check;
  try {  // the first run also measures cuDNN's algorithms on this problem
    conv = std::make_unique<CudnnConvolution>(o.width, o.height, o.radius);
    check = problem.check(launch);
  } catch (const std::runtime_error& e) {  // the library refused this problem: say so in its row
    m.status = std::string("cuDNN could not run: ") + e.what();
    std::printf("%-22s %s\n", "cuDNN", m.status.c_str());
    return m;
  }
  m.ran = true;
  m.passed = check.ok();
  m.status = m.passed ? "PASS" : "FAIL";
  std::printf("%-22s %s\n", "cuDNN", check.summary().c_str());
  std::printf("%-22s %s, algorithm %s (the fastest fp32 one it measured), workspace %zu B, FMA math (no TF32)\n", "",
              cudnn_description().c_str(), conv->algorithm().c_str(), conv->workspace_bytes());
  if (m.passed) m.timing = problem.time(launch, timer);
  return m;
}

/// --sweep: one row per radius, recorded as a run of its own.
int run_sweep(const char* program, const Options& options, int argc, char** argv) {
  RunRecord record(program, command_line(argc, argv), options.json);
  const std::string largest = std::to_string(filter_dim(MAX_FILTER_RADIUS));
  record.set_problem(std::to_string(options.width) + " x " + std::to_string(options.height) + " image, filters 3 x 3 to " +
                     largest + " x " + largest);
  std::printf("%s --sweep: the stages beyond the text at every radius, against the two floors\n\n", program);
  if (!gpu_or_explain(program)) return record.finish(kExitNoGpu);
  const DeviceInfo device = query_device();
  record.set_device(device.name);
  std::printf("device:  %s\nproblem: %d x %d floats, radius 1..%d\n\n", device.summary().c_str(), options.width,
              options.height, MAX_FILTER_RADIUS);
  KernelTimer timer(TimingOptions{3, options.repetitions, true});
  const std::vector<SweepRow> rows = sweep_radii(options, device, timer);
  bool all_passed = true;
  for (const SweepRow& row : rows)
    for (const Measurement& m : row.runs) all_passed = all_passed && m.passed;
  std::printf("\n");
  const Table table = sweep_table(rows, device);
  table.print(std::cout);
  record.add("sweep", "The stages beyond the text at every radius, against the DRAM and FP32 floors", table);
  return record.finish(all_passed ? kExitPass : kExitCheckFailed);
}

}  // namespace

int main(int argc, char** argv) {
  const char* program = "ch07_convolution";
  return guarded_main(program, [&] {
    Options options;
    bool sweep = false;
    Cli cli(program, "Chapter 7, convolution: the text's analysis (Fig 7.14), then every stage and the cuDNN "
                     "baseline on one problem, checked against the CPU reference and timed side by side.");
    add_options(cli, options);
    cli.flag("--sweep", sweep,
             "instead: every radius 1..8 at this size, the stages beyond the text against the DRAM and FP32 floors, "
             "one row per radius (--radius is ignored)");
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options);
    if (sweep && !options.analysis_only) return run_sweep(program, options, argc, argv);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));

    std::vector<const Stage*> all;
    for (const Stage& s : stages()) all.push_back(&s);
    std::printf("%s\n\nThe text's Fig 7.14: arithmetic intensity of the tiled kernel against tile size\n", program);
    const Table fig = fig_7_14_table();
    fig.print(std::cout);
    std::printf("\nThe text's model for each stage, radius %d:\n", options.radius);
    const Table intensity = intensity_table(all, options);
    intensity.print(std::cout);
    record.add("fig_7_14", "The text's Fig 7.14: OP/B of the tiled kernel against the input tile", fig);
    record.add("model", "The text's model for each stage", intensity);
    if (options.analysis_only) return record.finish(kExitPass);
    std::printf("\n");
    if (!gpu_or_explain(program)) return record.finish(kExitNoGpu);

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    std::printf("device:  %s\nproblem: ", device.summary().c_str());
    Problem problem(options);
    std::printf("%s\n\n", problem.describe().c_str());

    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<Measurement> runs;
    for (const Stage* stage : all)
      if (options.radius <= stage->max_radius) runs.push_back(measure(problem, *stage, timer));
    runs.push_back(measure_cudnn(problem, timer));
    bool all_passed = true;
    for (const auto& run : runs) all_passed = all_passed && (run.passed || !run.ran);

    std::printf("\n");
    Table results = results_table(runs, options, device, "cuDNN");
    results.print(std::cout);
    std::printf("\n");
    for (const std::string& line : explain_tiled_vs_basic(runs, options, device)) {
      std::printf("%s\n", line.c_str());
      results.add_note(line);  // the recorded run keeps the explanation with the numbers
    }
    record.add("results", "Stages side by side with cuDNN", results);
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}
