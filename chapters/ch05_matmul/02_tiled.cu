// =================================================================================================
// Stage 02: tiled matrix multiplication in shared memory (PMPP 4th ed., sections 5.3-5.5, Fig 5.9
// with the boundary checks of Fig 5.13)
//
// What it is:  each TILE_WIDTH x TILE_WIDTH block computes one tile of C in phases: per phase, its
//              threads copy one tile of A and one tile of B into shared memory (one float each),
//              wait, and take TILE_WIDTH steps of their dot products from the shared copies.
// Changed:     the operands of the inner loop come from shared memory. Each float a block loads from
//              global memory is used TILE_WIDTH times, so the text's intensity grows from 0.25 to
//              TILE_WIDTH / 4 OP/B. Tiles that hang over an edge of A or B are zero-filled, which adds
//              nothing to a dot product, so any M, N, K works (section 5.5).
// Limitation:  each multiply-add still needs two shared-memory loads, and a thread computes a single
//              output, so shared-memory bandwidth and instruction issue now bound the kernel. Stage 03
//              gives each thread a block of outputs held in registers.
// Preconditions: 1 <= M, N, K <= MAX_DIM; TILE_WIDTH (args.tile) is 16 or 32 (0 means 16, the text's).
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <int TILE_WIDTH>
__global__ void TiledMatrixMulKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                     int M, int N, int K) {
  static_assert(TILE_WIDTH * TILE_WIDTH <= 1024, "one thread per tile element: at most 1024 threads per block");
  __shared__ float Ads[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Bds[TILE_WIDTH][TILE_WIDTH];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_WIDTH + ty;
  const int col = blockIdx.x * TILE_WIDTH + tx;

  // No early return for threads outside C: they still load their share of each tile and must reach
  // every __syncthreads().
  float Pvalue = 0.0f;
  const int phases = ceil_div(K, TILE_WIDTH);
  for (int ph = 0; ph < phases; ++ph) {
    // A warp loads whole rows of tiles: consecutive tx read consecutive floats of A and of B, so both
    // loads coalesce. Out-of-range elements become 0 and add nothing to Pvalue.
    const int aCol = ph * TILE_WIDTH + tx;
    const int bRow = ph * TILE_WIDTH + ty;
    Ads[ty][tx] = (row < M && aCol < K) ? A[static_cast<std::int64_t>(row) * K + aCol] : 0.0f;
    Bds[ty][tx] = (bRow < K && col < N) ? B[static_cast<std::int64_t>(bRow) * N + col] : 0.0f;
    __syncthreads();  // the tiles are complete before anyone reads them

    for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Ads[ty][k] * Bds[k][tx];
    __syncthreads();  // everyone is done with the tiles before the next phase overwrites them
  }
  if (row < M && col < N) C[static_cast<std::int64_t>(row) * N + col] = Pvalue;
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

namespace {
template <int TILE_WIDTH>
LaunchConfig launch_tiled(const MatmulArgs& a) {
  // One thread per element of a TILE_WIDTH x TILE_WIDTH tile of C, threadIdx.x along a row.
  const dim3 block(TILE_WIDTH, TILE_WIDTH);
  // One block per tile of C: N columns by M rows, rounded up.
  const dim3 grid(ceil_div<unsigned>(a.N, TILE_WIDTH), ceil_div<unsigned>(a.M, TILE_WIDTH));
  TiledMatrixMulKernel<TILE_WIDTH><<<grid, block>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 2 * sizeof(float) * TILE_WIDTH * TILE_WIDTH};
}
}  // namespace

LaunchConfig matmul_tiled(const MatmulArgs& a) {
  require_valid(a, "matmul_tiled");
  // TILE_WIDTH sizes the shared arrays, so it is a compile-time constant: one kernel per choice.
  switch (a.tile) {
    case 0:
    case 16: return launch_tiled<16>(a);
    case 32: return launch_tiled<32>(a);
    default: throw std::invalid_argument("matmul_tiled: TILE_WIDTH must be 16 or 32, got " + std::to_string(a.tile));
  }
}

}  // namespace pmpp::ch05
