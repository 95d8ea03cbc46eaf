/// @file register_tile.cuh
/// @brief What stages 05 and 07 share: the register tile's geometry (a thread's 4 x COARSE_Y outputs,
/// the block's output and input tiles) and the arithmetic on it, add_filter_rows(). The two stages
/// differ only in how the input tile reaches shared memory: stage 05 copies it through registers,
/// stage 07 hands the copy to the Tensor Memory Accelerator.
#pragma once

#include <cuda_runtime.h>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

constexpr int COARSE_X = REGISTER_TILED_COARSE_X;  // outputs per thread along a row: one float4
static_assert(COARSE_X == 4, "one float4 of outputs per thread and row");

/// The sizes one tiling (BLOCK_X x BLOCK_Y threads of 4 x COARSE_Y outputs, TILES_PER_BLOCK tiles per
/// block) implies for one radius. Stage 05 uses register_tiling(radius), stage 07
/// tma_tiling(radius) (convolution.hpp).
template <int BLOCK_X_, int BLOCK_Y_, int COARSE_Y_, int TILES_PER_BLOCK_, int FILTER_RADIUS>
struct TileGeometry {
  static constexpr int BLOCK_X = BLOCK_X_, BLOCK_Y = BLOCK_Y_, COARSE_Y = COARSE_Y_;
  static constexpr int TILES_PER_BLOCK = TILES_PER_BLOCK_;
  static constexpr int THREADS = BLOCK_X * BLOCK_Y;
  static constexpr int OUT_TILE_W = BLOCK_X * COARSE_X, OUT_TILE_H = BLOCK_Y * COARSE_Y;
  static constexpr int HALO = register_tiled_pad(FILTER_RADIUS);  // halo columns: r rounded up to float4s
  static constexpr int IN_TILE_W = OUT_TILE_W + 2 * HALO;          // a multiple of 4: rows stay 16-byte aligned
  static constexpr int IN_TILE_H = OUT_TILE_H + 2 * FILTER_RADIUS;
  static_assert(BLOCK_X % 8 == 0, "8 threads of a row read 128 contiguous bytes of shared memory: no bank conflict");
  static_assert(TILES_PER_BLOCK >= 1, "a block computes at least one tile");
};

// ---- The arithmetic -----------------------------------------------------------------------------

//! [filter_rows]
// Add filter rows fRow0 .. fRow0 + ROWS - 1 into the thread's COARSE_Y x 4 outputs. Input row i of the
// thread's column (shared row outY + fRow0 + i) is needed by output row o = i - fRow for each of these
// filter rows fRow: read the row once, use it for all of them. Everything is unrolled, so acc and w
// live in registers and the `o` test disappears at compile time. The kernel calls this once with all
// 2r+1 rows (small filters: every F_c index is a constant) or in a loop over groups of rows (large
// filters: an unrolled body of (2r+1)^2 x 4 x COARSE_Y FMAs would not fit the instruction cache).
template <int FILTER_RADIUS, int HALO, int ROWS, int COARSE_Y, int IN_TILE_W>
__device__ __forceinline__ void add_filter_rows(float (&acc)[COARSE_Y][COARSE_X], const float (*N_s)[IN_TILE_W],
                                                int fRow0, int outX, int outY) {
  constexpr int FILTER_DIM = 2 * FILTER_RADIUS + 1;
  constexpr int WINDOW = COARSE_X + 2 * HALO;  // pixels of one input row a thread reads
#pragma unroll
  for (int i = 0; i < COARSE_Y + ROWS - 1; ++i) {
    float w[WINDOW];
    const float4* src = reinterpret_cast<const float4*>(&N_s[outY + fRow0 + i][outX]);
#pragma unroll
    for (int q = 0; q < WINDOW / 4; ++q) {
      const float4 v = src[q];
      w[4 * q] = v.x, w[4 * q + 1] = v.y, w[4 * q + 2] = v.z, w[4 * q + 3] = v.w;
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int o = i - r;
      if (o < 0 || o >= COARSE_Y) continue;
#pragma unroll
      for (int fCol = 0; fCol < FILTER_DIM; ++fCol) {
        const float f = F_c[(fRow0 + r) * FILTER_DIM + fCol];
        // Output column outX + c reads shared column outX + c - r + fCol + HALO = outX + (w's index).
#pragma unroll
        for (int c = 0; c < COARSE_X; ++c) acc[o][c] += f * w[c + HALO - FILTER_RADIUS + fCol];
      }
    }
  }
}
//! [filter_rows]

/// Every filter row into acc: all 2r+1 in one unrolled block when FILTER_ROWS = 2r+1, else in a loop
/// over groups of FILTER_ROWS and then the rest (see add_filter_rows).
template <int FILTER_RADIUS, int HALO, int FILTER_ROWS, int COARSE_Y, int IN_TILE_W>
__device__ __forceinline__ void add_filter(float (&acc)[COARSE_Y][COARSE_X], const float (*N_s)[IN_TILE_W], int outX,
                                           int outY) {
  constexpr int FILTER_DIM = 2 * FILTER_RADIUS + 1;
  constexpr int GROUPS = FILTER_DIM / FILTER_ROWS, REST = FILTER_DIM % FILTER_ROWS;
  static_assert(FILTER_ROWS >= 1 && FILTER_ROWS <= FILTER_DIM, "a group holds 1 to 2r+1 filter rows");
  if constexpr (GROUPS == 1) {
    add_filter_rows<FILTER_RADIUS, HALO, FILTER_ROWS>(acc, N_s, 0, outX, outY);
  } else {
#pragma unroll 1
    for (int g = 0; g < GROUPS; ++g) add_filter_rows<FILTER_RADIUS, HALO, FILTER_ROWS>(acc, N_s, g * FILTER_ROWS, outX, outY);
  }
  if constexpr (REST > 0) add_filter_rows<FILTER_RADIUS, HALO, REST>(acc, N_s, GROUPS * FILTER_ROWS, outX, outY);
}

/// Store a thread's COARSE_Y x 4 outputs, whose first is pixel (row0, col): one float4 per output row
/// when rows start on 16-byte boundaries (VECTOR_IO), else one float at a time. Rows and columns past
/// the image's edge are not stored.
template <bool VECTOR_IO, int COARSE_Y>
__device__ __forceinline__ void store_outputs(const float (&acc)[COARSE_Y][COARSE_X], float* __restrict__ P, int width,
                                              int height, int row0, int col) {
#pragma unroll
  for (int o = 0; o < COARSE_Y; ++o) {
    const int row = row0 + o;
    if (row >= height) break;
    float* dst = P + static_cast<long long>(row) * width + col;
    if constexpr (VECTOR_IO) {
      if (col < width) *reinterpret_cast<float4*>(dst) = make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
    } else {
#pragma unroll
      for (int c = 0; c < COARSE_X; ++c)
        if (col + c < width) dst[c] = acc[o][c];
    }
  }
}

}  // namespace pmpp::ch07
