// =================================================================================================
// 2D matrix sum, "inner" strategy: a reduction tree inside each block, host-driven passes
//
// What it is:  each MATRIX_PATCH x MATRIX_PATCH block loads one patch of the matrix into shared memory,
//              one element per thread, halves each row with a tree until column 0 holds the row
//              sums, halves column 0 the same way, and writes the patch's sum. The host launches pass
//              after pass (4096^2 -> 256^2 -> 16^2 -> 1 with 16 x 16 patches) because no barrier
//              spans the grid.
// Limitation:  this is section 10.3's tree with its weakness: after the loads, half the threads idle
//              at each step, and the column step keeps one thread per row busy (15 of 16 idle), with
//              a barrier between all steps. Every block pays that for just 256 elements.
// Preconditions: rows, cols >= 1; out holds pass_output(shape).
// =================================================================================================
#include <cuda_runtime.h>

#include "ch10_reduction/matrix_sum/matrix_sum.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Constants ----------------------------------------------------------------------------------

constexpr unsigned int INNER_DIM = MATRIX_PATCH;  // one thread per element of a patch
static_assert((INNER_DIM & (INNER_DIM - 1)) == 0, "the halving trees need a power-of-two patch");

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void reductionInner(const float* src, std::size_t rows, std::size_t cols, float* dst,
                               std::size_t dst_cols) {
  __shared__ float patch[INNER_DIM][INNER_DIM];
  const unsigned int tx = threadIdx.x, ty = threadIdx.y;
  const std::size_t col = static_cast<std::size_t>(blockIdx.x) * INNER_DIM + tx;
  const std::size_t row = static_cast<std::size_t>(blockIdx.y) * INNER_DIM + ty;
  // Threads past the matrix's ragged edge load the identity, so the trees need no bounds checks.
  patch[ty][tx] = row < rows && col < cols ? src[row * cols + col] : 0.0f;
  __syncthreads();
  for (unsigned int stride = INNER_DIM / 2; stride > 0; stride /= 2) {  // along each row
    if (tx < stride) patch[ty][tx] += patch[ty][tx + stride];
    __syncthreads();
  }
  for (unsigned int stride = INNER_DIM / 2; stride > 0; stride /= 2) {  // down column 0
    if (tx == 0 && ty < stride) patch[ty][0] += patch[ty + stride][0];
    __syncthreads();
  }
  if (tx == 0 && ty == 0) dst[blockIdx.y * dst_cols + blockIdx.x] = patch[0][0];
}

// ---- Launcher -----------------------------------------------------------------------------------

PassLaunch reduction_inner_pass(const float* in, MatrixShape shape, float* out, void* /*scratch*/) {
  const MatrixShape next = pass_output(shape);
  // One thread per element, one block per patch: the grid is the next pass's matrix.
  const dim3 block(INNER_DIM, INNER_DIM);
  const dim3 grid(static_cast<unsigned>(next.cols), static_cast<unsigned>(next.rows));
  reductionInner<<<grid, block>>>(in, shape.rows, shape.cols, out, next.cols);
  CUDA_CHECK_LAUNCH();
  return {grid.x, grid.y, block.x, block.y, sizeof(float) * INNER_DIM * INNER_DIM};
}

}  // namespace pmpp::ch10
