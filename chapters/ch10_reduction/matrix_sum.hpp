/// @file matrix_sum.hpp
/// @brief Summing a 2D matrix with host-driven passes, three ways: a tree inside each block
/// ("inner"), one thread serially summing a whole patch ("outer"), and the outer strategy with its
/// reads made coalesced. Plain C++, so tests and the program are ordinary .cpp files.
///
/// Every pass shrinks a rows x cols matrix to ceil(rows / MATRIX_PATCH) x ceil(cols / MATRIX_PATCH),
/// each output the sum of MATRIX_PATCH^2 inputs (fewer at ragged edges); passes repeat until one
/// value is left. The passes ping-pong between two scratch buffers, so the input is never written.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pmpp/device_buffer.hpp"

namespace pmpp::ch10 {

/// Each pass reduces MATRIX_PATCH x MATRIX_PATCH inputs to one output (the inner strategy's block is
/// one patch, one thread per element; the outer strategies give one patch to each thread).
inline constexpr unsigned MATRIX_PATCH = 16;

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
  std::string to_string() const;
};

/// One way of summing a matrix: a kernel for one pass and what it is.
struct MatrixStrategy {
  const char* id;      ///< "inner", "outer", "outer_coalesced"
  const char* title;   ///< one line for tables
  /// Enqueue one pass: @p in has shape @p shape, @p out receives pass_output(shape). Checks the launch.
  PassLaunch (*launch_pass)(const float* in, MatrixShape shape, float* out);
};

/// The three strategies, in the order the program prints them.
const std::vector<MatrixStrategy>& matrix_strategies();

// ---- Pass kernels (one .cu each) -------------------------------------------------------------------

/// Tree inside each block: MATRIX_PATCH^2 threads load a patch to shared memory, reduce each row, then
/// the first column (matrix_inner.cu).
PassLaunch reduction_inner_pass(const float* in, MatrixShape shape, float* out);
/// One thread per patch, summing it row by row (matrix_outer.cu).
PassLaunch reduction_outer_pass(const float* in, MatrixShape shape, float* out);
/// One thread per output, summing MATRIX_PATCH^2 inputs chosen so that a warp reads consecutive
/// floats at every step (matrix_outer_coalesced.cu).
PassLaunch reduction_outer_coalesced_pass(const float* in, MatrixShape shape, float* out);

/// The host side of the passes: two scratch buffers, sized for the first two passes' outputs, and
/// the loop that launches pass after pass until one value is left.
class MatrixPasses {
 public:
  explicit MatrixPasses(MatrixShape shape);
  /// All passes of @p strategy on the default stream (no synchronization). Returns the device address
  /// of the 1 x 1 result; @p launches, if given, receives each pass's launch.
  const float* run(const MatrixStrategy& strategy, const float* in, std::vector<PassLaunch>* launches = nullptr);
  /// Input and output of pass @p k (0-based) as run() uses them, for timing one pass alone.
  const float* pass_input(std::size_t k, const float* in) const;
  float* pass_output_buffer(std::size_t k);
  const std::vector<MatrixShape>& shapes() const { return shapes_; }
  std::size_t passes() const { return shapes_.size() - 1; }

 private:
  std::vector<MatrixShape> shapes_;
  DeviceBuffer<float> a_, b_;
};

/// The checker: every element summed in double.
double matrix_sum_reference(const std::vector<float>& m);

}  // namespace pmpp::ch10
