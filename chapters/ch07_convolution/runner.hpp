/// @file runner.hpp
/// @brief What every chapter-7 program does: options, inputs, the checked run, the timed run, the
/// analysis next to the measurement. The stage programs and the side-by-side program share it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
  int tile = 0;  ///< stage 03's input tile; 0: the text's 32
  std::uint64_t seed = 1;
  int repetitions = 25;
  bool exact = false;       ///< small integers: results must match the reference bit for bit
  bool analysis_only = false;
  std::string json;         ///< if set, write the results table here
};

/// Register the options every chapter-7 program takes.
void add_options(Cli& cli, Options& options);
/// Reject what the ranges cannot express (an image too large to hold, a tile stage 03 cannot use),
/// as a UsageError with one line of explanation.
void validate(const Options& options);
/// The problem in words for the run record's captions: "8192 x 8192 image, 5 x 5 filter".
std::string problem_in_words(const Options& options);

/// Anything that computes the convolution described by Conv2dArgs on the default stream: a stage's
/// launcher or a library call.
using Launch = std::function<void(const Conv2dArgs&)>;

/// Inputs, reference and device buffers for one problem, made once and shared by every stage.
class Problem {
 public:
  explicit Problem(const Options& options);
  ~Problem();
  const Options& options() const { return options_; }
  /// One line: size, filter, input kind, tolerance.
  std::string describe() const;
  /// The device buffers and sizes (the filter by pointer, for launches that do not use constant memory).
  Conv2dArgs args() const;
  /// The filter in host memory, for the stages' upload_filter.
  const float* host_filter() const { return filter_.data(); }

  /// Run @p stage once on poisoned output and compare with the CPU reference.
  CheckResult check(const Stage& stage);
  /// The same for any other launch (the library baseline).
  CheckResult check(const Launch& launch);
  /// Stage 01 also runs through its hand-written round trip (host arrays in, host array out).
  CheckResult check_round_trip();
  /// Time @p stage (launch only); returns the launch configuration it used.
  LaunchConfig time(const Stage& stage, KernelTimer& timer, Timing& timing);
  /// Time any other launch.
  Timing time(const Launch& launch, KernelTimer& timer);

 private:
  struct Device;
  Options options_;
  std::vector<float> in_, filter_, reference_;
  Tolerance tolerance_{};
  std::unique_ptr<Device> device_;
};

/// One row of the results: a stage or the library baseline.
struct Measurement {
  std::string name;                    ///< the stage's id, or "cuDNN"
  bool ran = false;                    ///< false: not available; `status` says why
  bool passed = false;                 ///< checked against the CPU reference and within tolerance
  std::string status;                  ///< "PASS", "FAIL", or why it did not run
  std::optional<LaunchConfig> config;  ///< grid, block, shared memory (stages only)
  Timing timing;
};
Measurement measure(Problem& problem, const Stage& stage, KernelTimer& timer);

/// The two limits a 2D convolution cannot beat on this device, in milliseconds.
struct Floors {
  double dram_ms = 0;  ///< the compulsory 8 B/pixel at the device's peak DRAM bandwidth
  double fma_ms = 0;   ///< (2r+1)^2 FMAs per pixel at the device's peak FP32 rate (0 if unknown)
  double fp32_tflops = 0;  ///< that peak, 2 operations per FMA
};
Floors floors(const Options& options, const DeviceInfo& device);

/// The measured results as one table: time, compulsory GB/s, % of the DRAM floor, GFLOP/s, speed-up
/// against the first row and, when a passing row is named @p library, against that row.
Table results_table(const std::vector<Measurement>& runs, const Options& options, const DeviceInfo& device,
                    const std::string& library = "");
/// A few printed lines: from the measurements, why the text's tiled stages do or do not beat 01_basic
/// on this device.
std::vector<std::string> explain_tiled_vs_basic(const std::vector<Measurement>& runs, const Options& options,
                                                const DeviceInfo& device);
/// The text's model next to the DRAM-traffic intensity for each stage in @p stages.
Table intensity_table(const std::vector<const Stage*>& stages, const Options& options);
/// The text's Fig 7.14 (OP/B of the tiled kernel against tile size), computed.
Table fig_7_14_table();

/// One radius of the sweep: the stages beyond the text, each checked and timed on the same problem.
struct SweepRow {
  int radius = 0;
  Floors floors;
  std::vector<Measurement> runs;  ///< one per stage beyond the text, in the table's order
};
/// Every radius 1..MAX_FILTER_RADIUS at the options' size: checks and times each stage beyond the
/// text (printing one line per check as it goes).
std::vector<SweepRow> sweep_radii(const Options& options, const DeviceInfo& device, KernelTimer& timer);
/// The sweep as a table: one row per radius, the two floors, each stage's time, the best stage and
/// its time as a share of the higher floor.
Table sweep_table(const std::vector<SweepRow>& rows, const DeviceInfo& device);

}  // namespace pmpp::ch07
