/// @file runner.hpp
/// @brief What every chapter-7 program does: options, inputs, the checked run, the timed run, the
/// analysis next to the measurement. The stage programs and the side-by-side program share it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/check.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/report.hpp"
#include "pmpp/timing.hpp"

namespace pmpp::ch07 {

struct Options {
  int width = 8192;
  int height = 8192;
  int radius = 2;
  int tile = 0;  ///< 0: each stage's default input tile
  std::uint64_t seed = 1;
  int repetitions = 25;
  bool exact = false;       ///< small integers: results must match the reference bit for bit
  bool analysis_only = false;
  std::string json;         ///< if set, write the results table here
};

/// Register the options every chapter-7 program takes.
void add_options(Cli& cli, Options& options);
/// Reject combinations the ranges cannot express (e.g. an image too large to hold).
void validate(const Options& options);

/// Inputs, reference and device buffers for one problem, made once and shared by every stage.
class Problem {
 public:
  explicit Problem(const Options& options);
  ~Problem();
  const Options& options() const { return options_; }
  /// One line: size, filter, input kind, tolerance.
  std::string describe() const;

  /// Run @p stage once on poisoned output and compare with the CPU reference.
  CheckResult check(const Stage& stage);
  /// Stage 01 also runs through its hand-written round trip (host arrays in, host array out).
  CheckResult check_round_trip();
  /// Time @p stage (launch only); returns the launch configuration it used.
  LaunchConfig time(const Stage& stage, KernelTimer& timer, Timing& timing);

 private:
  struct Device;
  Options options_;
  std::vector<float> in_, filter_, reference_;
  Tolerance tolerance_{};
  std::unique_ptr<Device> device_;
  Conv2dArgs args() const;
};

/// The measured results of several stages as one table (speed-up relative to the first row).
struct StageMeasurement {
  const Stage* stage;
  LaunchConfig config;
  Timing timing;
  bool passed;
};
Table results_table(const std::vector<StageMeasurement>& runs, const Options& options, const DeviceInfo& device);
/// The text's model next to the DRAM-traffic intensity for each stage in @p runs.
Table intensity_table(const std::vector<const Stage*>& stages, const Options& options);
/// The text's Fig 7.14 (OP/B of the tiled kernel against tile size), computed.
Table fig_7_14_table();
/// "NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 50 MiB L2, peak DRAM 3352 GB/s)"
std::string describe(const DeviceInfo& device);

}  // namespace pmpp::ch07
