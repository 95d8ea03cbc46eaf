/// @file runner.hpp
/// @brief What every chapter-10 program does: options, inputs, the checked run, the timed run, the
/// counted run, and the text's analysis next to what was measured. The stage programs and the
/// side-by-side program share it (run_program); the tables they print are in tables.cpp.
#pragma once

#include <cstdint>
#include <map>
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

/// Largest n --trace prints (one line per step, one entry per adding thread): one warp of threads.
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

/// Register the options a program running @p list takes: --op only where a stage takes several
/// operators, --trace only where every stage can be traced.
void add_options(Cli& cli, Options& options, const std::vector<const Stage*>& list);
/// Reject what the ranges cannot express: for a one-stage program, n past its limit or an operator it
/// does not implement; --trace on a long input.
void validate(const Options& options, const std::vector<const Stage*>& list);
/// Why @p stage cannot run these options ("" if it can): the side-by-side program prints it in the row.
std::string unsupported(const Stage& stage, const Options& options);
/// The problem in words for the run record's captions: "sum of 2^24 floats, random in [-1, 1)".
std::string problem_in_words(const Options& options);

/// The outcome of one checked run.
struct Check {
  ReductionLaunch launch;
  double got = 0, want = 0;
  Tolerance tolerance{};
  bool ok = false;
  /// "PASS: got 6, want 6 (exact)" or "FAIL: got nan, want 6, |error| nan > bound 1e-3".
  std::string summary() const;
};

/// Inputs, reference and device buffers for one problem, made once and shared by every stage.
class Problem {
 public:
  explicit Problem(const Options& options);
  const Options& options() const { return options_; }
  /// The input and how the check is made, in lines of at most 100 columns.
  std::string describe() const;
  const std::vector<float>& input() const { return input_; }

  /// Run @p stage once on a NaN-poisoned output and compare with the CPU reference.
  Check check(const Stage& stage);
  /// Time @p stage (launches only; in-place stages get their input restored outside the timing).
  Timing time(const Stage& stage, KernelTimer& timer);
  /// Run @p stage's counting build once and return what it counted.
  ResourceCounts measure(const Stage& stage);
  /// Run @p stage's counting build once and return its operator applications, in order.
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
  std::optional<ResourceCounts> counts;  ///< from the counting build
};

/// Run @p stage through check, timing and (for this chapter's stages) the counting build.
Measurement run_stage(Problem& problem, const Stage& stage, KernelTimer& timer);

// ---- Tables (tables.cpp) ---------------------------------------------------------------------------

/// Launch configuration, check, time, GB/s and % of peak DRAM for each run, and the throughput
/// relative to @p baseline (the CUB row) when one is given. Then up to two limits. With @p read_limit (the
/// fastest read of the input, pmpp/read_limit.hpp, timed by the same timer): what DRAM delivers in
/// practice, measured. With @p empty_launch (an empty kernel timed by the same timer): that fixed cost
/// plus one read of the input at the data sheet's peak, the least time any one-launch reduction of n
/// floats could take here if the memory delivered its peak.
Table results_table(const std::vector<Measurement>& runs, std::size_t n, const DeviceInfo& device,
                    const Measurement* baseline, const Timing* empty_launch, const ReadLimit* read_limit = nullptr);
/// The text's analysis for one stage: its closed forms, the same rules counted for this kernel, and
/// (if given) what the counting build measured on the GPU, with the reasons where they differ.
Table analysis_table(const Stage& stage, std::size_t n, const ReductionLaunch& launch,
                     const std::optional<ResourceCounts>& measured);
/// The same for several stages, one row each (efficiency and requests); a stage that did not run
/// these options is planned for @p gpu.
Table analysis_summary(const std::vector<Measurement>& runs, std::size_t n, const GpuShape& gpu);
/// What a profiler compares its counters with, one row per stage of @p list (the run record's
/// "profile" table; not printed): the work and compulsory traffic at the options' n, and the model's
/// predictions for the launches planned for @p gpu.
Table profile_table(const std::vector<const Stage*>& list, const Options& options, const GpuShape& gpu);
/// Fig 10.7 / 10.8 from a recorded trace: per step, which threads add and which elements.
void print_trace(const Stage& stage, const std::vector<TraceRecord>& trace, const std::vector<float>& input);

// ---- The program ------------------------------------------------------------------------------------

/// The whole program: options, the text's analysis, and on a GPU the checked, timed and counted runs
/// of @p list next to cub::DeviceReduce. Returns the exit status (program.hpp).
int run_program(const std::string& program, const std::string& summary, const std::vector<const Stage*>& list,
                int argc, char** argv);

}  // namespace pmpp::ch10
