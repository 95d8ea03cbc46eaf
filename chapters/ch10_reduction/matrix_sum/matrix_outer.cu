// =================================================================================================
// 2D matrix sum, "outer" strategy: one thread sums a whole patch, host-driven passes
//
// What it is:  thread (x, y) sums the MATRIX_PATCH x MATRIX_PATCH patch at (y * PATCH, x * PATCH) row by
//              row, in a register, and writes one value: no shared memory, no barrier, no idle
//              thread. The host launches passes until one value is left, as for the inner strategy.
// Changed:     thread coarsening taken to its end (section 10.8): where the inner strategy's block
//              spends a tree on 256 elements, one thread adds them serially, every thread busy, with
//              256 times fewer threads to schedule. It wins when the inner strategy launches more
//              threads than the GPU runs at once.
// Limitation:  its loads are not coalesced: neighbouring threads start MATRIX_PATCH floats (64 bytes)
//              apart, so one warp-wide load touches 32 different 32-byte sectors and uses 4 bytes of
//              each. The next loads of the row find those sectors in L1, though, and over its 16 steps
//              a warp sweeps one contiguous 2 KB run of the row. matrix_outer_coalesced.cu makes
//              every load coalesced instead; measure which matters more on your GPU. In the later
//              passes the few threads (1024 for the second pass of an 8192^2 matrix) each add 256
//              values one after another: coarsening past the point where the GPU is full (10.8).
// Preconditions: rows, cols >= 1; out holds pass_output(shape).
// =================================================================================================
#include <cuda_runtime.h>

#include "ch10_reduction/matrix_sum/matrix_sum.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Constants ----------------------------------------------------------------------------------

// 32 threads along x, so that a warp is one row of threads (which the coalesced version relies on).
constexpr unsigned int OUTER_BLOCK_X = 32, OUTER_BLOCK_Y = 8;

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void reductionOuter(const float* src, std::size_t rows, std::size_t cols, float* dst,
                               std::size_t dst_rows, std::size_t dst_cols) {
  const std::size_t x = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t y = static_cast<std::size_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= dst_cols || y >= dst_rows) return;
  const std::size_t row_end = min(rows, (y + 1) * MATRIX_PATCH), col_end = min(cols, (x + 1) * MATRIX_PATCH);
  float sum = 0.0f;
  for (std::size_t row = y * MATRIX_PATCH; row < row_end; ++row)
    for (std::size_t col = x * MATRIX_PATCH; col < col_end; ++col)  // this thread's own run of the row
      sum += src[row * cols + col];
  dst[y * dst_cols + x] = sum;
}

// ---- Launcher -----------------------------------------------------------------------------------

PassLaunch reduction_outer_pass(const float* in, MatrixShape shape, float* out, void* /*scratch*/) {
  const MatrixShape next = pass_output(shape);
  // One thread per output value (per patch); blocks of 32 x 8 threads tile the next pass's matrix.
  const dim3 block(OUTER_BLOCK_X, OUTER_BLOCK_Y);
  const dim3 grid(ceil_div<unsigned>(static_cast<unsigned>(next.cols), block.x),
                  ceil_div<unsigned>(static_cast<unsigned>(next.rows), block.y));
  reductionOuter<<<grid, block>>>(in, shape.rows, shape.cols, out, next.rows, next.cols);
  CUDA_CHECK_LAUNCH();
  return {grid.x, grid.y, block.x, block.y, 0};
}

}  // namespace pmpp::ch10
