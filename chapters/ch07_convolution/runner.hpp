/// @file runner.hpp
/// @brief What every chapter-7 program does: options, the text's analysis, inputs, the checked and
/// timed runs, and the tables that put the measurement next to the analysis. A stage program lists one
/// stage and times it next to the first; the side-by-side program lists every stage, adds the libraries
/// (cuDNN, NPP), and offers `--sweep`. Both are run_program() with a different list.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/library_baseline.hpp"
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
  int tile = 0;  ///< input tile of the stages that have a choice (Stage::tiles); 0: each one's default
  std::uint64_t seed = 1;
  int repetitions = 25;
  bool exact = false;       ///< small integers: results must match the reference bit for bit
  bool analysis_only = false;
  bool sweep = false;       ///< the side-by-side program's other mode: every radius, the stages beyond the text
  std::string json;         ///< if set, write the tables here
};

/// True for the side-by-side program: its list is the whole stage table.
bool is_whole_chapter(const std::vector<const Stage*>& list);
/// Register the options a program with these stages uses: `--tile` only if one of them has a tile
/// choice, `--sweep` only for the whole chapter.
void add_options(Cli& cli, Options& options, const std::vector<const Stage*>& list);
/// Reject what the ranges cannot express (an image too large to hold, a problem one of the listed
/// stages cannot run), as a UsageError with one line of explanation.
void validate(const Options& options, const std::vector<const Stage*>& list);
/// The problem in words for the run record's captions: "8192 x 8192 image, 5 x 5 filter".
std::string problem_in_words(const Options& options);
/// The stages a program with @p list runs: a stage program also runs the first stage, to compare.
std::vector<const Stage*> stages_to_run(const std::vector<const Stage*>& list);

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

  /// Run @p stage once on poisoned output and compare with the CPU reference.
  CheckResult check(const Stage& stage);
  /// The same for any other launch (the library baseline).
  CheckResult check(const Launch& launch);
  /// Run the stage's hand-written host round trip (Stage::round_trip) and compare.
  CheckResult check_round_trip(const Stage& stage);
  /// Time @p stage (launch only); returns the launch configuration it used.
  LaunchConfig time(const Stage& stage, KernelTimer& timer, Timing& timing);
  /// Time any other launch.
  Timing time(const Launch& launch, KernelTimer& timer);
  /// Time a cudaMemcpy of the input image into the output, device to device: each pixel read once and
  /// written once, the compulsory traffic at what this GPU's DRAM delivers in practice.
  Timing time_copy_once(KernelTimer& timer);

 private:
  struct Device;
  Options options_;
  std::vector<float> in_, filter_, reference_;
  Tolerance tolerance_{};
  std::unique_ptr<Device> device_;
};

/// One row of the results: a stage or the library baseline.
struct Measurement {
  std::string name;                    ///< the stage's id, or the library's name
  const Stage* stage = nullptr;        ///< null for the library
  int tile = 0;                        ///< the input tile it ran with (0: no choice)
  bool ran = false;                    ///< false: not available; `status` and `why` say so
  bool passed = false;                 ///< checked against the CPU reference and within tolerance
  std::string status;                  ///< "PASS", "FAIL" or "skipped"
  std::string why;                     ///< why it was skipped, one line naming it; else empty
  std::optional<LaunchConfig> config;  ///< grid, block, shared memory (stages only)
  Timing timing;
};
/// Check @p stage (printing its check line) and, if it passed, time it; or, where its skip_reason
/// names one, a skipped row that says why.
Measurement measure(Problem& problem, const Stage& stage, KernelTimer& timer);
/// The same for a library (prepare() untimed, run() timed), or a skipped row that says why there is none.
Measurement measure_library(Problem& problem, const LibraryBaseline& library, KernelTimer& timer);

/// The limits a 2D convolution cannot beat on this device, in milliseconds.
struct Floors {
  double dram_ms = 0;      ///< the compulsory 8 B/pixel at the device's peak DRAM bandwidth
  double fma_ms = 0;       ///< (2r+1)^2 FMAs per pixel at the device's peak FP32 rate (0 if unknown)
  double fp32_tflops = 0;  ///< that peak, 2 operations per FMA
  double tf32_tflops = 0;  ///< the dense TF32 tensor-core peak (0 if unknown), for stages with tensor_flops
};
Floors floors(const Options& options, const DeviceInfo& device);


// ---- Tables (tables.cpp) -----------------------------------------------------------------------

/// The text's model next to the DRAM-traffic intensity for each stage in @p list.
Table intensity_table(const std::vector<const Stage*>& list, const Options& options);
/// The text's Fig 7.14 (OP/B of the tiled kernel against tile size), computed.
Table fig_7_14_table();
/// What the profiler should find for each stage in @p list at the options' sizes, one row per stage
/// (recorded as "profile", not printed): FLOPs, compulsory bytes, the two intensities and the stage's
/// CounterPrediction. Numbers are numbers; "-" where a stage has none.
Table profile_table(const std::vector<const Stage*>& list, const Options& options);
/// How each measured stage was launched: grid, block, shared memory.
Table launch_table(const std::vector<Measurement>& runs);
/// Time, compulsory GB/s, % of the DRAM floor, GFLOP/s and speed-ups against the first row and each
/// library that passed; then the floors as rows of their own (time, GB/s and GFLOP/s only): DRAM, FP32
/// and, for each stage that ran on tensor cores, its tensor-core floor. With @p copy_once
/// (Problem::time_copy_once) a measured limit too, "limit: copy once", with its GB/s and % of floor.
Table results_table(const std::vector<Measurement>& runs, const Options& options, const DeviceInfo& device,
                    const Timing* copy_once = nullptr);
/// From the times in @p runs, why each stage is as fast as it is (Stage::explain), one line each,
/// after a heading line.
std::vector<std::string> explain_times(const std::vector<Measurement>& runs, const Options& options,
                                       const DeviceInfo& device);

/// One radius of the sweep: the stages beyond the text, each checked and timed on the same problem.
struct SweepRow {
  int radius = 0;
  Floors floors;
  std::vector<Measurement> runs;       ///< one per stage beyond the text, in the table's order
  std::vector<Measurement> libraries;  ///< one per library (cuDNN, NPP), run or skipped with the reason
};
/// The sweep as a table: one row per radius, the two floors, each stage's time, the best stage's time
/// as a share of the higher floor (with a column naming the best when there are several), and each
/// library's time with the best stage's speed-up over it. With @p copy_once (the image's copy, the same at
/// every radius) a note gives its time and its share of the DRAM floor.
Table sweep_table(const std::vector<SweepRow>& rows, const DeviceInfo& device, const Timing* copy_once = nullptr);

// ---- The program (runner.cpp) ------------------------------------------------------------------

/// The whole program: options, the analysis, and on a GPU the checked and timed runs of the stages
/// (stages_to_run(list)) and, for the whole chapter, of the libraries (cuDNN, NPP); or with --sweep the radius sweep.
/// Returns the exit status (program.hpp).
int run_program(const std::string& program, const std::string& summary, const std::vector<const Stage*>& list,
                int argc, char** argv);

}  // namespace pmpp::ch07
