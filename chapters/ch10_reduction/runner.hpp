/// @file runner.hpp
/// @brief What every chapter-10 program does: options, inputs, the checked run, the timed run, the
/// instrumented run, and the text's analysis next to what was measured. The stage programs and the
/// side-by-side program share it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/check.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/read_limit.hpp"
#include "pmpp/report.hpp"
#include "pmpp/timing.hpp"

namespace pmpp::ch10 {

/// Largest n --trace prints (one line per step, one entry per adding thread).
inline constexpr std::size_t kMaxTraceN = 64;

struct Options {
  std::size_t n = std::size_t{1} << 24;
  std::string op = "sum";
  std::string inputs = "exact";  ///< "exact" or "floats" (see InputKind)
  std::uint64_t seed = 1;
  int repetitions = 25;
  bool trace = false;
  bool analysis_only = false;
  std::string json;  ///< if set, write the tables here

  Op parsed_op() const { return parse_op(op); }
  InputKind input_kind() const { return inputs == "floats" ? InputKind::floats : InputKind::exact; }
};

/// Register the options every chapter-10 program takes (--trace only where @p traceable).
void add_options(Cli& cli, Options& options, bool traceable);
/// Reject what the ranges cannot express: n past a single-block stage's limit, an operator the stage
/// does not implement, --trace on a long input. @p stage is null for the side-by-side program.
void validate(const Options& options, const Stage* stage);
/// Why @p stage cannot run these options ("" if it can): the side-by-side program prints it in the row.
std::string unsupported(const Stage& stage, const Options& options);
/// The problem in words for the run record's captions: "sum of 2^24 floats, random in [-1, 1)".
std::string problem_in_words(const Options& options);

/// The outcome of one checked run.
struct Check {
  LaunchConfig config;
  double got = 0, want = 0;
  Tolerance tolerance{};
  bool ok = false;
  /// "PASS: got 6 want 6 (exact)" or "FAIL: got nan want 6 (tolerance 1e-3)".
  std::string summary() const;
};

/// Inputs, reference and device buffers for one problem, made once and shared by every stage.
class Problem {
 public:
  explicit Problem(const Options& options);
  const Options& options() const { return options_; }
  /// Two lines: the input and how the check is made.
  std::string describe() const;
  const std::vector<float>& input() const { return input_; }

  /// Run @p stage once on a NaN-poisoned output and compare with the CPU reference.
  Check check(const Stage& stage);
  /// Time @p stage (launches only; in-place stages get their input restored outside the timing).
  Timing time(const Stage& stage, KernelTimer& timer);
  /// Run @p stage's instrumented build once and return what it counted.
  ResourceCounts measure(const Stage& stage, LaunchConfig& config);
  /// Run @p stage's instrumented build once and return its operator applications, in order.
  std::vector<TraceRecord> trace(const Stage& stage);
  /// The fastest read of the input by a kernel that does nothing else: the measured DRAM limit.
  ReadLimit read_limit(KernelTimer& timer) { return time_read_once(d_input_.data(), d_input_.bytes(), timer); }

 private:
  ReduceArgs args(const Stage& stage);
  void restore_input(const Stage& stage);
  Options options_;
  Op op_;
  std::vector<float> input_;
  double reference_ = 0, sum_abs_ = 0;
  bool exact_ = false;
  DeviceBuffer<float> d_input_, d_work_, d_output_;
  std::map<std::string, DeviceBuffer<unsigned char>> scratch_;
};

/// One stage's measured run (or why it did not run).
struct Measurement {
  const Stage* stage = nullptr;
  std::string skipped;  ///< non-empty: the stage could not run these options, and why
  Check check;
  Timing timing;
  std::optional<ResourceCounts> counts;  ///< from the instrumented build
};

/// Run @p stage through check, timing and (for this chapter's stages) the instrumented build.
Measurement run_stage(Problem& problem, const Stage& stage, KernelTimer& timer);

/// Launch configuration, check, time, GB/s and % of peak DRAM for each run, and the throughput
/// relative to @p baseline (the CUB row) when one is given. Then up to two limits. With @p read_limit (the
/// fastest read of the input, pmpp/read_limit.hpp, timed by the same timer): what DRAM delivers in
/// practice, measured. With @p empty_launch (an empty kernel timed by the same timer): that fixed cost
/// plus one read of the input at the data sheet's peak, the least time any one-launch reduction of n
/// floats could take here if the memory delivered its peak.
Table results_table(const std::vector<Measurement>& runs, std::size_t n, const DeviceInfo& device,
                    const Measurement* baseline, const Timing* empty_launch, const ReadLimit* read_limit = nullptr);
/// The text's analysis for one stage: its closed forms, the same rules counted for this kernel, and
/// (if given) what the instrumented build counted on the GPU, with the reasons where they differ.
Table analysis_table(const Stage& stage, std::size_t n, const LaunchConfig& config,
                     const std::optional<ResourceCounts>& measured);
/// The same for several stages, one row each (efficiency and requests).
Table analysis_summary(const std::vector<Measurement>& runs, std::size_t n, const GpuShape& gpu);
/// Fig 10.7 / 10.8 from a recorded trace: per step, which threads add and which elements.
void print_trace(const Stage& stage, const std::vector<TraceRecord>& trace, const std::vector<float>& input);

}  // namespace pmpp::ch10
