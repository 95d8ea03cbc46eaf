// =================================================================================================
// Stage 04: warp-tiled matrix multiplication (beyond the text; stage 03's coarsening, organized by warp)
//
// What it is:  a block of 256 threads (8 warps) computes a 128 x 256 tile of C, walking K in slices of 16
//              held in shared memory. Each warp owns a 64 x 64 part of the tile; its lanes sit 4 down by
//              8 across, and each lane computes 16 x 8 results: 4 x 2 blocks of 4 x 4, the blocks of
//              neighbouring lanes side by side. For every k a lane reads 4 float4s of A and 2 of B from
//              shared memory and performs 128 multiply-adds.
// Changed:     twice stage 03's results per thread (128 accumulators, about 230 registers, so one block
//              fills an SM): 6 shared-memory reads per 128 multiply-adds instead of 4 per 64. Laid out
//              by warp, the lanes' float4 reads touch only 4 (As) or 8 (Bs) neighbouring float4s, each
//              shared by several lanes: one wavefront per read. Slices of 16 halve the barriers per
//              multiply-add, and a lane reads step k + 1's values while step k's multiply-adds run.
// Limitation:  instruction issue: with two warps per scheduler every stall shows, and the stalls come
//              from register allocation and instruction order, which CUDA C leaves to the compiler. The
//              next slice also passes through 24 staging registers, which keep the slices at 16; stage
//              05 copies it with cp.async, straight into shared memory.
// Preconditions: 1 <= M, N, K <= MAX_DIM. Any sizes and alignments: float4 loads and stores when
//              N % 4 == 0, K % 4 == 0 and A, B, C are 16-byte aligned (float4_operands); otherwise the
//              same kernel compiled with scalar, bounds-checked accesses.
// =================================================================================================
#include <cuda_runtime.h>

#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/tile_io.cuh"
#include "ch05_matmul/warp_tile.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

// ---- Kernel -------------------------------------------------------------------------------------

template <class Shape, bool VECTOR_IO>
__global__ void __launch_bounds__(WarpTileGeometry<Shape>::THREADS, Shape::MIN_BLOCKS)
    WarpTiledMatrixMulKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  using G = WarpTileGeometry<Shape>;
  constexpr int TILE_M = G::TILE_M, TILE_N = G::TILE_N, TILE_K = G::TILE_K;
  constexpr int LANE_M = G::LANE_M, LANE_N = G::LANE_N;
  static_assert(TILE_M % 32 == 0 && G::THREADS % TILE_M == 0, "a warp copies one k-quad of 32 consecutive A rows");
  // A is stored transposed (As[k][m]) so that a lane's 4 rows of one k are one float4 read.
  __shared__ __align__(16) float As[2][TILE_K][TILE_M];
  __shared__ __align__(16) float Bs[2][TILE_K][TILE_N];

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int blockRow = blockIdx.y * TILE_M, blockCol = blockIdx.x * TILE_N;
  const int laneRow = G::lane_row(warp, lane), laneCol = G::lane_col(warp, lane);

  // Copies: the 32 lanes of a warp take one k-quad of 32 consecutive A rows, so the transposed stores
  // As[k][row] hit 32 different banks; B is copied row by row, a warp's float4s side by side. The next
  // slice is loaded into registers while this one is used.
  float4 aNext[G::A_LOADS], bNext[G::B_LOADS];
  auto loadSlice = [&](int k0) {
#pragma unroll
    for (int l = 0; l < G::A_LOADS; ++l) {
      const int i = l * G::THREADS + tid;
      aNext[l] = load4<VECTOR_IO>(A, blockRow + i % TILE_M, M, k0 + (i / TILE_M) * 4, K);
    }
#pragma unroll
    for (int l = 0; l < G::B_LOADS; ++l) {
      const int i = l * G::THREADS + tid;
      bNext[l] = load4<VECTOR_IO>(B, k0 + i / (TILE_N / 4), K, blockCol + (i % (TILE_N / 4)) * 4, N);
    }
  };
  auto storeSlice = [&](int buf) {
#pragma unroll
    for (int l = 0; l < G::A_LOADS; ++l) {
      const int i = l * G::THREADS + tid, row = i % TILE_M, k = (i / TILE_M) * 4;
      As[buf][k + 0][row] = aNext[l].x;
      As[buf][k + 1][row] = aNext[l].y;
      As[buf][k + 2][row] = aNext[l].z;
      As[buf][k + 3][row] = aNext[l].w;
    }
#pragma unroll
    for (int l = 0; l < G::B_LOADS; ++l) {
      const int i = l * G::THREADS + tid;
      *reinterpret_cast<float4*>(&Bs[buf][i / (TILE_N / 4)][(i % (TILE_N / 4)) * 4]) = bNext[l];
    }
  };

  // The lane's fragments of step k: LANE_M values of A's column k, LANE_N of B's row k. Two sets, so
  // that step k + 1's are read from shared memory while step k's multiply-adds run.
  float a[2][LANE_M], b[2][LANE_N];
  auto loadFragments = [&](int buf, int k, int set) {
#pragma unroll
    for (int i = 0; i < G::M_ITER; ++i) {
      const float4 v = *reinterpret_cast<const float4*>(&As[buf][k][laneRow + i * 4 * G::LANES_M]);
      a[set][4 * i] = v.x, a[set][4 * i + 1] = v.y, a[set][4 * i + 2] = v.z, a[set][4 * i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < G::N_ITER; ++j) {
      const float4 v = *reinterpret_cast<const float4*>(&Bs[buf][k][laneCol + j * 4 * G::LANES_N]);
      b[set][4 * j] = v.x, b[set][4 * j + 1] = v.y, b[set][4 * j + 2] = v.z, b[set][4 * j + 3] = v.w;
    }
  };

  float acc[LANE_M][LANE_N] = {};

  const int slices = ceil_div(K, TILE_K);
  loadSlice(0);
  storeSlice(0);
  __syncthreads();
  //! [slice_loop]
  for (int s = 0; s < slices; ++s) {
    const int cur = s & 1;
    if (s + 1 < slices) loadSlice((s + 1) * TILE_K);  // in flight while this slice is used

    loadFragments(cur, 0, 0);
#pragma unroll
    for (int k = 0; k < TILE_K; ++k) {
      const int set = k % 2;
      if (k + 1 < TILE_K) loadFragments(cur, k + 1, set ^ 1);
#pragma unroll
      for (int i = 0; i < LANE_M; ++i)
#pragma unroll
        for (int j = 0; j < LANE_N; ++j) acc[i][j] += a[set][i] * b[set][j];
    }

    // The other buffer was last read in slice s - 1, before the barrier that ended it.
    if (s + 1 < slices) storeSlice(cur ^ 1);
    __syncthreads();
  }
  //! [slice_loop]

  store_lane_results<G, VECTOR_IO>(C, M, N, blockRow + laneRow, blockCol + laneCol, acc);
}

// ---- Launcher -----------------------------------------------------------------------------------

/// Launch the kernel with tiling @p Shape (the stage's is WarpTiling).
template <class Shape>
LaunchConfig launch_warp_tiled(const MatmulArgs& a) {
  using G = WarpTileGeometry<Shape>;
  // THREADS threads: (TILE_M / WARP_M) x (TILE_N / WARP_N) warps, each computing a WARP_M x WARP_N
  // part of the block's tile of C.
  const dim3 block(G::THREADS);
  // One block per TILE_M x TILE_N tile of C, rounded up.
  const dim3 grid(ceil_div<unsigned>(a.N, G::TILE_N), ceil_div<unsigned>(a.M, G::TILE_M));
  if (float4_operands(a))
    WarpTiledMatrixMulKernel<Shape, true><<<grid, block>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  else
    WarpTiledMatrixMulKernel<Shape, false><<<grid, block>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  CUDA_CHECK_LAUNCH();
  const std::size_t shared = sizeof(float) * 2 * G::TILE_K * (G::TILE_M + G::TILE_N);
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared};
}

LaunchConfig matmul_warp_tiled(const MatmulArgs& a) {
  require_valid(a, "matmul_warp_tiled");
  return launch_warp_tiled<WarpTiling>(a);
}

}  // namespace pmpp::ch05
