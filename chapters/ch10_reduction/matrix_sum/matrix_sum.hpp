/// @file matrix_sum.hpp
/// @brief Summing a 2D matrix, four ways: with host-driven passes, a tree inside each block ("inner"),
/// one thread serially summing a whole patch ("outer"), and the outer strategy with its reads made
/// coalesced; and in one launch, one thread per tall, one-column patch ("outer_columns"). Plain C++, so
/// tests and the program are ordinary .cpp files.
///
/// A pass of the first three shrinks a rows x cols matrix to ceil(rows / MATRIX_PATCH) x
/// ceil(cols / MATRIX_PATCH), each output the sum of MATRIX_PATCH^2 inputs (fewer at ragged edges);
/// passes repeat until one value is left. outer_columns leaves 1 x 1 after its one pass. The passes
/// ping-pong between two scratch buffers, so the input is never written.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pmpp/device_buffer.hpp"

namespace pmpp::ch10 {

/// Each pass reduces MATRIX_PATCH x MATRIX_PATCH inputs to one output (the inner strategy's block is
/// one patch, one thread per element; the outer strategies give one patch to each thread).
inline constexpr unsigned MATRIX_PATCH = 16;
/// outer_columns' scratch: the block counter at offset 0, the block results from this offset on.
inline constexpr std::size_t MATRIX_RESULTS_OFFSET = 128;

/// A row-major matrix's shape.
struct MatrixShape {
  std::size_t rows = 0, cols = 0;
  std::size_t size() const { return rows * cols; }
  bool operator==(const MatrixShape& o) const { return rows == o.rows && cols == o.cols; }
};

/// The shape one pass leaves: ceil(rows / patch) x ceil(cols / patch).
MatrixShape pass_output(MatrixShape in, unsigned patch = MATRIX_PATCH);
/// Every shape from @p in down to 1 x 1: the input of each pass, then the final 1 x 1.
std::vector<MatrixShape> pass_shapes(MatrixShape in, unsigned patch = MATRIX_PATCH);

/// What one pass launched.
struct PassLaunch {
  unsigned grid_x = 0, grid_y = 0, block_x = 0, block_y = 0;
  std::size_t shared_bytes = 0;
  /// Grid and block: "512x512 x 16x16".
  std::string to_string() const;
};

/// One way of summing a matrix: a kernel for one pass and what it is.
struct MatrixStrategy {
  const char* id;      ///< "inner", "outer", "outer_coalesced", "outer_columns"
  const char* title;   ///< one line for tables
  /// The shape one pass leaves of a matrix of shape @p in.
  MatrixShape (*next_shape)(MatrixShape in);
  /// Enqueue one pass: @p in has shape @p shape, @p out receives next_shape(shape); @p scratch is
  /// scratch_bytes(shape) bytes, zeroed before the first pass (unused where scratch_bytes is nullptr).
  /// Checks the launch.
  PassLaunch (*launch_pass)(const float* in, MatrixShape shape, float* out, void* scratch);
  /// Scratch one pass needs; nullptr: none.
  std::size_t (*scratch_bytes)(MatrixShape in);
  /// Longest chain of float roundings an element goes through, all passes together (the k of the
  /// error bound gamma_k * sum|x|).
  std::size_t (*rounding_depth)(MatrixShape in);
};

/// The four strategies, in the order the program prints them.
const std::vector<MatrixStrategy>& matrix_strategies();
/// Every shape from @p in down to 1 x 1 under @p strategy's passes.
std::vector<MatrixShape> pass_shapes(MatrixShape in, const MatrixStrategy& strategy);

// ---- Pass kernels (one .cu each) -------------------------------------------------------------------

/// Tree inside each block: MATRIX_PATCH^2 threads load a patch to shared memory, reduce each row, then
/// the first column (matrix_inner.cu).
PassLaunch reduction_inner_pass(const float* in, MatrixShape shape, float* out, void* scratch);
/// One thread per patch, summing it row by row (matrix_outer.cu).
PassLaunch reduction_outer_pass(const float* in, MatrixShape shape, float* out, void* scratch);
/// One thread per output, summing MATRIX_PATCH^2 inputs chosen so that a warp reads consecutive
/// floats at every step (matrix_outer_coalesced.cu).
PassLaunch reduction_outer_coalesced_pass(const float* in, MatrixShape shape, float* out, void* scratch);
/// One launch: each thread sums tall, one-column patches, a grid's worth apart: 16 rows of a float4;
/// 4 rows of an aligned float4 with the other rows' floats masked out where rows do not start on 16-byte
/// boundaries; 16 rows of one float when the matrix does not. The blocks combine their threads' sums
/// and the last block the blocks' (matrix_outer_columns.cu).
PassLaunch reduction_outer_columns_pass(const float* in, MatrixShape shape, float* out, void* scratch);
std::size_t outer_columns_scratch_bytes(MatrixShape in);
std::size_t outer_columns_rounding_depth(MatrixShape in);

/// The host side of one strategy's passes: two scratch buffers, sized for the first two passes'
/// outputs, the strategy's own scratch, and the loop that launches pass after pass until one value
/// is left.
class MatrixPasses {
 public:
  MatrixPasses(const MatrixStrategy& strategy, MatrixShape shape);
  /// All passes on the default stream (no synchronization). Returns the device address of the 1 x 1
  /// result; @p launches, if given, receives each pass's launch.
  const float* run(const float* in, std::vector<PassLaunch>* launches = nullptr);
  /// Enqueue pass @p k alone (0-based), reading pass_input(k, in): for timing one pass.
  PassLaunch run_pass(std::size_t k, const float* in);
  /// Input and output of pass @p k (0-based) as run() uses them, for timing one pass alone.
  const float* pass_input(std::size_t k, const float* in) const;
  float* pass_output_buffer(std::size_t k);
  const std::vector<MatrixShape>& shapes() const { return shapes_; }
  std::size_t passes() const { return shapes_.size() - 1; }

 private:
  const MatrixStrategy& strategy_;
  std::vector<MatrixShape> shapes_;
  DeviceBuffer<float> a_, b_;
  DeviceBuffer<unsigned char> scratch_;
};

/// What a timed pass tells about its limiter.
struct PassEvidence {
  double ms = 0;                ///< median time of the pass alone
  double input_bytes = 0;       ///< bytes it must read
  double threads = 0;           ///< threads it launched
  double resident_threads = 0;  ///< threads the GPU holds at once
  double empty_launch_ms = 0;   ///< an empty kernel, timed the same way
  double peak_dram_gbps = 0;
};
/// What most likely limits a pass, in a few words: DRAM bandwidth (when it reads at 75% of peak or
/// more), launch latency (when it takes less than twice an empty kernel), too few threads (fewer than a
/// quarter of what the GPU holds), or otherwise the access pattern and instruction issue. A reading of
/// the time only; the recorded Nsight Compute counters (profile/recorded/) confirm it.
std::string pass_limiter(const PassEvidence& evidence);

/// The checker: every element summed in double.
double matrix_sum_reference(const std::vector<float>& m);

}  // namespace pmpp::ch10
