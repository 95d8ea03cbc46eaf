/// @file warp_tile.cuh
/// @brief The warp tiling of stages 04 and 05: the sizes a tiling implies, where each lane's results
/// sit in the block's tile of C, and how a lane stores them.
#pragma once

#include <cuda_runtime.h>

#include "ch05_matmul/tile_io.cuh"

namespace pmpp::ch05 {

/// The derived sizes of a warp tiling (WarpTiling or AsyncCopyTiling in matmul.hpp, or another shape
/// with their members).
template <class Shape>
struct WarpTileGeometry {
  static constexpr int TILE_M = Shape::TILE_M, TILE_N = Shape::TILE_N, TILE_K = Shape::TILE_K;
  static constexpr int WARP_M = Shape::WARP_M, WARP_N = Shape::WARP_N;
  static constexpr int LANES_M = Shape::LANES_M, LANES_N = 32 / Shape::LANES_M;
  static constexpr int WARPS_N = TILE_N / WARP_N;  // warps across the block tile
  static constexpr int THREADS = 32 * (TILE_M / WARP_M) * WARPS_N;
  // A lane owns M_ITER x N_ITER blocks of 4 x 4 results; its blocks sit LANES_M * 4 rows (LANES_N * 4
  // columns) apart, so that the lanes of a warp read neighbouring float4s of each shared slice.
  static constexpr int M_ITER = WARP_M / (4 * LANES_M), N_ITER = WARP_N / (4 * LANES_N);
  static constexpr int LANE_M = 4 * M_ITER, LANE_N = 4 * N_ITER;  // results per lane: LANE_M x LANE_N
  // float4s each thread copies per slice: the A slice (TILE_M x TILE_K), the B slice (TILE_K x TILE_N).
  static constexpr int A_LOADS = TILE_M * TILE_K / 4 / THREADS, B_LOADS = TILE_K * TILE_N / 4 / THREADS;

  static_assert(TILE_M % WARP_M == 0 && TILE_N % WARP_N == 0, "warp tiles cover the block tile");
  static_assert(32 % LANES_M == 0 && M_ITER >= 1 && N_ITER >= 1 && WARP_M % (4 * LANES_M) == 0 &&
                    WARP_N % (4 * LANES_N) == 0,
                "the lanes' 4 x 4 blocks cover the warp tile");
  static_assert(TILE_K % 4 == 0 && A_LOADS * THREADS * 4 == TILE_M * TILE_K && B_LOADS * THREADS * 4 == TILE_K * TILE_N,
                "the threads' float4 copies cover the A and B slices");

  /// This lane's first result row inside the block tile: its warp's corner plus its place in the
  /// warp's LANES_M x LANES_N arrangement. Its result i is in row lane_row + result_row(i).
  __device__ static int lane_row(int warp, int lane) { return (warp / WARPS_N) * WARP_M + (lane / LANES_N) * 4; }
  /// How far below the lane's first result row its result i lies: blocks of 4 rows, 4 * LANES_M apart.
  __device__ static constexpr int result_row(int i) { return (i / 4) * 4 * LANES_M + i % 4; }
  /// This lane's first result column; its result j is in column lane_col + (j / 4) * 4 * LANES_N + j % 4.
  __device__ static int lane_col(int warp, int lane) { return (warp % WARPS_N) * WARP_N + (lane % LANES_N) * 4; }
};

/// Store a lane's LANE_M x LANE_N results to C (M x N), whose block tile starts at (row0, col0): one
/// float4 per 4 x 4 block row, dropping what falls outside C (VECTOR_IO as for store4).
template <class G, bool VECTOR_IO>
__device__ __forceinline__ void store_lane_results(float* __restrict__ C, int M, int N, int row0, int col0,
                                                   const float (&acc)[G::LANE_M][G::LANE_N]) {
#pragma unroll
  for (int i = 0; i < G::LANE_M; ++i) {
    const int row = row0 + G::result_row(i);
#pragma unroll
    for (int j = 0; j < G::N_ITER; ++j) {
      const float* v = &acc[i][4 * j];
      store4<VECTOR_IO>(C, row, M, col0 + j * 4 * G::LANES_N, N, make_float4(v[0], v[1], v[2], v[3]));
    }
  }
}

}  // namespace pmpp::ch05
