/// @file runner.hpp
/// @brief What every chapter-5 program does: options, the text's analysis, inputs, the checked run and
/// the timed run of each stage next to cuBLAS. The stage programs and the side-by-side program share it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/check.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/report.hpp"
#include "pmpp/timing.hpp"

namespace pmpp::ch05 {

struct Options {
  int m = 4096;
  int n = 4096;
  int k = 4096;
  int tile = 0;  ///< TILE_WIDTH of stage 02; 0: every one it is compiled for
  std::uint64_t seed = 1;
  int repetitions = 20;
  bool exact = false;  ///< small integers: results must match the reference bit for bit
  bool analysis_only = false;
  std::string json;  ///< if set, write the tables here
};

/// True when a stage of @p list is compiled for several TILE_WIDTHs (the program then takes --tile).
bool takes_tile(const std::vector<const Stage*>& list);
/// Register the options of a program that runs @p list: sizes, seed, repetitions, --exact, --analysis,
/// --json, and --tile only where takes_tile(list).
void add_options(Cli& cli, Options& options, const std::vector<const Stage*>& list);
/// Reject what the ranges cannot express (a TILE_WIDTH no stage of @p list is compiled for, a matrix
/// too large).
void validate(const Options& options, const std::vector<const Stage*>& list);
/// The problem in words for the run record's captions: "M = N = K = 4096".
std::string problem_in_words(const Options& options);

/// Products of at most this many multiply-adds are checked whole on the CPU; larger ones on a sample
/// (sample_entries) with this many random entries besides its whole rows and columns.
inline constexpr double FULL_CHECK_MAX_MACS = 1073741824.0;  // 2^30: 1024^3
inline constexpr int SAMPLE_RANDOM_ENTRIES = 4096;

/// One thing to measure: a stage at one TILE_WIDTH, or a cuBLAS baseline (stage == nullptr).
struct Contender {
  std::string name;
  const Stage* stage;
  int tile;
  std::function<LaunchConfig(const MatmulArgs&)> launch;
  const char* arithmetic = "FP32";  ///< as Stage::arithmetic; cuBLAS: "FP32" or "TF32"
  const ErrorBound* error_bound = &FP32_ROUNDING;
  std::function<std::string()> unavailable;  ///< empty, or why it cannot run on this GPU ("" if it can)
};
/// True when a stage of @p list computes in another arithmetic than FP32 (then cuBLAS with TF32 allowed
/// joins the run as its peer).
bool has_tensor_core_stage(const std::vector<const Stage*>& list);
/// Each stage of @p list at each TILE_WIDTH it has (or only @p tile_option, if set), then cuBLAS in FP32
/// (@p cublas) and with TF32 allowed (@p cublas_tf32); a null library is left out.
std::vector<Contender> contenders(const std::vector<const Stage*>& list, int tile_option, const CublasSgemm* cublas,
                                  const CublasSgemm* cublas_tf32 = nullptr);

/// Inputs, reference and device buffers for one problem, made once and shared by every contender.
class Problem {
 public:
  explicit Problem(const Options& options);
  ~Problem();
  /// The product and its inputs in words: "C (4096 x 4096) = A (4096 x 4096) B (...), random floats ...".
  std::string inputs() const;
  /// What is checked, and with which tolerance (the FP32 one).
  std::string check_method() const;
  /// The largest per-entry tolerance @p bound gives over the checked entries.
  double largest_bound(const ErrorBound& bound) const;
  /// Run @p who once on poisoned output and compare with the CPU reference.
  CheckResult check(const Contender& who);
  /// Time @p who (the launch only); @p config receives the launch configuration it used.
  Timing time(const Contender& who, KernelTimer& timer, LaunchConfig& config);

 private:
  struct Device;
  Options options_;
  std::vector<float> A_, B_;
  Reference reference_;
  bool sampled_ = false;
  std::unique_ptr<Device> device_;
  MatmulArgs args(int tile) const;
};

struct Measurement {
  const Contender* who;
  LaunchConfig config;
  Timing timing;
  bool passed;
  double max_error = 0;  ///< the check's largest |result - FP64 reference| over the checked entries
  std::string skipped;   ///< why it did not run on this GPU; empty when it ran
};
/// How each run was launched: grid, block and shared memory per block.
Table launch_table(const std::vector<Measurement>& runs);
/// The measured results: time, GFLOP/s, "% cuBLAS" (against the cuBLAS row of the same arithmetic: TF32
/// against cuBLAS with TF32 allowed, the rest against FP32 SGEMM), the largest error against the FP64
/// reference, the bytes the text's model says were loaded per second, and the speed-up over the first row;
/// then the limits: the FP32 peak, and with tensor-core rows the TF32 peak and three times its time.
Table results_table(const std::vector<Measurement>& runs, const Options& options, const DeviceInfo& device);
/// The text's intensity model for each stage (section 5.1, 5.4) at the options' sizes; each stage's
/// reason why measurements differ from it is a note.
Table intensity_table(const std::vector<const Stage*>& list, const Options& options);
/// Section 6.1: how the first warp of each stage touches global memory at the options' N and K.
Table coalescing_table(const std::vector<const Stage*>& list, const Options& options);
/// What the profiler (scripts/profile) sets next to its counters, one row per stage and TILE_WIDTH:
/// stage, tile, flops (2MNK), compulsory read B (4(MK + KN)), compulsory write B (4MN), text model
/// OP/B, DRAM-read OP/B (flops per compulsory byte read), sectors per request, threads per warp, bank
/// conflicts, shared access, note. Written to the run record only, never printed.
Table profile_table(const std::vector<const Stage*>& list, const Options& options);

/// The whole program: options, the analysis, and on a GPU the checked and timed runs of @p list and
/// of cuBLAS. Returns the exit status (program.hpp).
int run_program(const std::string& program, const std::string& summary, const std::vector<const Stage*>& list,
                int argc, char** argv);

}  // namespace pmpp::ch05
