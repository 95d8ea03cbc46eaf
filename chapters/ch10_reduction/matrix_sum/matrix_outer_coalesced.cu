// =================================================================================================
// 2D matrix sum, "outer" strategy with coalesced reads: one thread, MATRIX_PATCH^2 elements, no barrier
//
// What it is:  as matrix_outer.cu, one thread per output value summing MATRIX_PATCH^2 elements in a
//              register, but thread x of a pass with C output columns takes, in each of its rows,
//              the columns x, x + C, x + 2C, ...: neighbouring threads read neighbouring floats at
//              every step, so a warp's load is one 128-byte segment.
// Changed:     only which elements a thread sums. Fig 10.15 makes the same choice for 1D: its
//              coarsened thread reads input[i + tile * BLOCK_DIM], elements a block apart, rather than
//              COARSE_FACTOR neighbours. The sum does not care which elements a thread adds (the
//              operator is associative and commutative, section 10.2); the memory system does.
// Limitation:  a thread's outputs are no longer sums of spatial patches (fine for a total, useless
//              for, say, a downsampled image). Coalescing is not enough on its own: its unrolled 64-bit
//              index arithmetic needs many registers, and without the launch bounds below too few
//              warps fit an SM to keep enough loads in flight (the book's matrix section has the
//              measurements). In the later passes its few threads each add 256 floats in sequence.
// Preconditions: rows, cols >= 1; out holds pass_output(shape).
// =================================================================================================
#include <cuda_runtime.h>

#include "ch10_reduction/matrix_sum/matrix_sum.hpp"
#include "pmpp/arch_limits.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Constants ----------------------------------------------------------------------------------

// 32 threads along x: a warp is 32 neighbouring output columns, so it reads 32 neighbouring floats.
constexpr unsigned int COALESCED_BLOCK_X = 32, COALESCED_BLOCK_Y = 8;
// As many blocks per SM as its threads allow: without this bound the unrolled index arithmetic takes
// 80 registers a thread (sm_90), 3 blocks fit an SM, and too few loads are in flight (see above).
constexpr unsigned int COALESCED_MIN_BLOCKS = min_blocks_to_fill_sm(COALESCED_BLOCK_X * COALESCED_BLOCK_Y);

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void __launch_bounds__(COALESCED_BLOCK_X* COALESCED_BLOCK_Y, COALESCED_MIN_BLOCKS)
    reductionOuterCoalesced(const float* src, std::size_t rows, std::size_t cols, float* dst,
                                        std::size_t dst_rows, std::size_t dst_cols) {
  const std::size_t x = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t y = static_cast<std::size_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= dst_cols || y >= dst_rows) return;
  const std::size_t row_end = min(rows, (y + 1) * MATRIX_PATCH);
  float sum = 0.0f;
  for (std::size_t row = y * MATRIX_PATCH; row < row_end; ++row) {
#pragma unroll
    for (unsigned int j = 0; j < MATRIX_PATCH; ++j) {
      const std::size_t col = x + j * dst_cols;  // dst_cols apart: a warp reads consecutive floats
      if (col < cols) sum += src[row * cols + col];
    }
  }
  dst[y * dst_cols + x] = sum;
}

// ---- Launcher -----------------------------------------------------------------------------------

PassLaunch reduction_outer_coalesced_pass(const float* in, MatrixShape shape, float* out, void* /*scratch*/) {
  const MatrixShape next = pass_output(shape);
  // One thread per output value; blocks of 32 x 8 threads tile the next pass's matrix.
  const dim3 block(COALESCED_BLOCK_X, COALESCED_BLOCK_Y);
  const dim3 grid(ceil_div<unsigned>(static_cast<unsigned>(next.cols), block.x),
                  ceil_div<unsigned>(static_cast<unsigned>(next.rows), block.y));
  reductionOuterCoalesced<<<grid, block>>>(in, shape.rows, shape.cols, out, next.rows, next.cols);
  CUDA_CHECK_LAUNCH();
  return {grid.x, grid.y, block.x, block.y, 0};
}

}  // namespace pmpp::ch10
