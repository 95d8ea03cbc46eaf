// =================================================================================================
// Stage 01: naive matrix multiplication (PMPP 4th ed., section 3.4, Fig 3.11)
//
// What it is:  a 2D grid of 16 x 16 blocks laid over C, one thread per element of C; each thread walks
//              one row of A and one column of B and writes one dot product.
// Changed:     first stage. Unlike the text's square Width x Width kernel, A is M x K and B is K x N,
//              with every size allowed: the grid is rounded up and the threads that hang over C's
//              edge do nothing.
// Limitation:  every term of the dot product loads a float of A and a float of B from global memory
//              for one multiply-add: 0.25 OP/B in the text's model (section 5.1). Neighbouring threads
//              load the same values again and again, which motivates stage 02 (shared-memory tiles).
// Preconditions: 1 <= M, N, K <= MAX_DIM; A, B, C in device memory and not overlapping.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
__global__ void MatrixMulKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  // The grid is rounded up to whole blocks, so the last blocks hang over C's right and bottom edges.
  if (row < M && col < N) {
    const float* Arow = A + static_cast<std::int64_t>(row) * K;
    float Pvalue = 0.0f;
    for (int k = 0; k < K; ++k)
      // In a warp, B[k][col] is 16 consecutive floats (coalesced); A[row][k] is one float per row of
      // the block that every lane of that row shares (a broadcast, one sector per row).
      Pvalue += Arow[k] * B[static_cast<std::int64_t>(k) * N + col];
    C[static_cast<std::int64_t>(row) * N + col] = Pvalue;
  }
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

LaunchConfig matmul_naive(const MatmulArgs& a) {
  require_valid(a, "matmul_naive");
  // One thread per element of C, threadIdx.x along a row of C so that a warp's B loads and C stores
  // are consecutive floats; 16 x 16 as in the text.
  const dim3 block(NAIVE_BLOCK_DIM, NAIVE_BLOCK_DIM);
  // Enough blocks to cover N columns and M rows.
  const dim3 grid(ceil_div<unsigned>(a.N, block.x), ceil_div<unsigned>(a.M, block.y));
  MatrixMulKernel<<<grid, block>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0};
}

}  // namespace pmpp::ch05
