// =================================================================================================
// Stage 05: register-tiled, software-pipelined convolution (beyond the text)
//
// What it is:  a block of BLOCK_X x BLOCK_Y threads walks down a column of TILES_PER_BLOCK output
//              tiles. For each it copies the input tile (output tile plus halo) into shared memory
//              with 16-byte loads; then each thread computes a 4-wide, COARSE_Y-tall patch of outputs
//              in registers, reading each input row's window from shared memory once and adding it
//              into every output row that needs it. The next tile's loads are in flight meanwhile
//              (for the smallest filters, one wide tile per block measured fastest: other blocks'
//              loads fill the wait).
// Changed:     stage 04 spends (2r+1)^2 loads and their address arithmetic on every output; here a
//              pixel read from shared memory feeds up to 4 x COARSE_Y FMAs. And where stages 03-04
//              load, wait, compute and leave, so that DRAM and the SMs take turns, the prefetch
//              overlaps the two. The tiling depends on the radius: register_tiling() in convolution.hpp.
// Limitation:  what is left is the hardware's: DRAM bandwidth for small filters; for large ones the
//              (2r+1)^2 FMAs per pixel, issued beside the tile copy, the shared-memory reads and the
//              loop control, which keep it below the FP32 floor. A general 2D filter has no cheaper
//              arithmetic; a separable one would (two 1D passes).
// Preconditions: width, height >= 1; 1 <= radius <= MAX_FILTER_RADIUS; the filter uploaded with
//              convolution_2D_register_tiled_upload_filter before the launch. The float4 path needs
//              rows on 16-byte boundaries (width % 4 == 0, in and out 16-byte aligned); otherwise the
//              kernel is compiled to move one float at a time.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

constexpr int COARSE_X = REGISTER_TILED_COARSE_X;  // outputs per thread along a row: one float4
static_assert(COARSE_X == 4, "one float4 of outputs per thread and row");

/// The sizes one tiling (BLOCK_X x BLOCK_Y threads of 4 x COARSE_Y outputs, TILES_PER_BLOCK tiles per
/// block) implies for one radius. Stage 05 uses register_tiling(radius) (convolution.hpp).
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

// ---- Kernel -------------------------------------------------------------------------------------

// A float4 of zeros in device memory: what ghost cells load (see InputTileLoad).
__device__ const float4 kGhostZeros = {0.0f, 0.0f, 0.0f, 0.0f};

// One input tile in flight: fetch() issues every load of this thread's share of the tile into
// registers at once (a load-then-store loop would wait out the memory latency once per unit), and
// store() later writes them to shared memory. Units are float4s, or floats when rows are not 16-byte
// aligned; shared column c holds image column col0 + c and shared row i image row row0 - r + i. A
// unit outside the image (a ghost cell) loads zeros from kGhostZeros, so the store needs no test; with
// col0 and width multiples of 4, a float4 is wholly inside a row or wholly out. A unit's column, and so
// whether it is inside the image's width, is the same for every tile of the block: tested once.
template <class Unit, int FILTER_RADIUS, class Geo>
struct InputTileLoad {
  static constexpr int THREADS = Geo::THREADS, IN_TILE_W = Geo::IN_TILE_W;
  static constexpr int VEC = sizeof(Unit) / sizeof(float);
  static constexpr int UNITS_PER_ROW = IN_TILE_W / VEC;
  static constexpr int UNITS = UNITS_PER_ROW * Geo::IN_TILE_H;
  static constexpr int PER_THREAD = (UNITS + THREADS - 1) / THREADS;
  Unit v[PER_THREAD];

  // Unit k of this thread exists (only the last k can fall past the tile's end).
  __device__ static constexpr bool exists(int k, int tid) { return (k + 1) * THREADS <= UNITS || k * THREADS + tid < UNITS; }

  __device__ __forceinline__ void fetch(const float* __restrict__ N, int width, int height, int row0, int col0,
                                        int tid) {
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int i = k * THREADS + tid;
      const int inRow = row0 - FILTER_RADIUS + i / UNITS_PER_ROW;
      const int inCol = col0 + i % UNITS_PER_ROW * VEC;
      // One unsigned comparison covers both ends: a negative index becomes a huge unsigned one.
      const bool inside = static_cast<unsigned>(inRow) < static_cast<unsigned>(height) &&
                          static_cast<unsigned>(inCol) < static_cast<unsigned>(width);
      const Unit* src = inside ? reinterpret_cast<const Unit*>(N + static_cast<long long>(inRow) * width + inCol)
                               : reinterpret_cast<const Unit*>(&kGhostZeros);
      if (exists(k, tid)) v[k] = __ldg(src);
    }
  }
  __device__ __forceinline__ void store(float (*N_s)[IN_TILE_W], int tid) const {
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int i = k * THREADS + tid;
      if (exists(k, tid)) *reinterpret_cast<Unit*>(&N_s[i / UNITS_PER_ROW][i % UNITS_PER_ROW * VEC]) = v[k];
    }
  }
};

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

// VECTOR_IO: rows start on 16-byte boundaries, so loads and stores move float4s. A template
// parameter rather than a run-time flag, so that the scalar variant's registers do not limit the
// occupancy of the float4 one.
template <int FILTER_RADIUS, bool VECTOR_IO, int BLOCK_X, int BLOCK_Y, int COARSE_Y, int TILES_PER_BLOCK,
          int FILTER_ROWS, int MIN_BLOCKS>
__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y, MIN_BLOCKS)
    convolution_2D_register_tiled_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height) {
  using Geo = TileGeometry<BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, FILTER_RADIUS>;
  constexpr int FILTER_DIM = 2 * FILTER_RADIUS + 1;
  constexpr int HALO = Geo::HALO, IN_TILE_W = Geo::IN_TILE_W, IN_TILE_H = Geo::IN_TILE_H;
  constexpr int OUT_TILE_W = Geo::OUT_TILE_W, OUT_TILE_H = Geo::OUT_TILE_H;
  // The filter's rows in groups of FILTER_ROWS, then the REST (see add_filter_rows).
  constexpr int GROUPS = FILTER_DIM / FILTER_ROWS, REST = FILTER_DIM % FILTER_ROWS;
  static_assert(FILTER_ROWS >= 1 && FILTER_ROWS <= FILTER_DIM, "a group holds 1 to 2r+1 filter rows");
  __shared__ __align__(16) float N_s[IN_TILE_H][IN_TILE_W];

  const int tileCol0 = blockIdx.x * OUT_TILE_W;  // first output column of this block's tiles
  const int firstRow = blockIdx.y * (TILES_PER_BLOCK * OUT_TILE_H);
  const int tid = threadIdx.y * BLOCK_X + threadIdx.x;
  const int outX = threadIdx.x * COARSE_X;       // this thread's outputs within a tile
  const int outY = threadIdx.y * COARSE_Y;

  //! [tile_loop]
  InputTileLoad<std::conditional_t<VECTOR_IO, float4, float>, FILTER_RADIUS, Geo> next;
  next.fetch(N, width, height, firstRow, tileCol0 - HALO, tid);
  for (int t = 0; t < TILES_PER_BLOCK; ++t) {
    const int tileRow0 = firstRow + t * OUT_TILE_H;
    if (tileRow0 >= height) break;  // the same for the whole block, so no thread misses a barrier
    __syncthreads();                // every thread is done reading the previous tile from N_s
    next.store(N_s, tid);
    __syncthreads();                // the tile is in place
    if (t + 1 < TILES_PER_BLOCK && tileRow0 + OUT_TILE_H < height)  // in flight during the computation
      next.fetch(N, width, height, tileRow0 + OUT_TILE_H, tileCol0 - HALO, tid);

    float acc[COARSE_Y][COARSE_X] = {};
    if constexpr (GROUPS == 1) {
      add_filter_rows<FILTER_RADIUS, HALO, FILTER_ROWS>(acc, N_s, 0, outX, outY);
    } else {
#pragma unroll 1
      for (int g = 0; g < GROUPS; ++g) add_filter_rows<FILTER_RADIUS, HALO, FILTER_ROWS>(acc, N_s, g * FILTER_ROWS, outX, outY);
    }
    if constexpr (REST > 0) add_filter_rows<FILTER_RADIUS, HALO, REST>(acc, N_s, GROUPS * FILTER_ROWS, outX, outY);

    // Storing: one float4 per output row when rows are aligned, else one float at a time.
    const int col = tileCol0 + outX;
#pragma unroll
    for (int o = 0; o < COARSE_Y; ++o) {
      const int row = tileRow0 + outY + o;
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
  //! [tile_loop]
}

// ---- Launcher -----------------------------------------------------------------------------------

void convolution_2D_register_tiled_upload_filter(const float* host_filter, int radius) {
  upload_filter_to_constant_memory(host_filter, radius);
}

/// Launch stage 05's kernel for radius R with the tiling BLOCK_X x BLOCK_Y x COARSE_Y x TILES_PER_BLOCK,
/// the filter's rows added FILTER_ROWS at a time, registers for MIN_BLOCKS blocks an SM.
template <int R, int BLOCK_X, int BLOCK_Y, int COARSE_Y, int TILES_PER_BLOCK, int FILTER_ROWS, int MIN_BLOCKS>
LaunchConfig launch_register_tiled(const Conv2dArgs& a) {
  using Geo = TileGeometry<BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, R>;
  // Each thread owns 4 x COARSE_Y outputs of a tile, so a block covers one OUT_TILE_W x OUT_TILE_H
  // tile at a time; it computes TILES_PER_BLOCK of them, one below the other, so that it has a next
  // tile to prefetch. The grid covers the width in tiles and the height in columns of tiles.
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid(ceil_div<unsigned>(a.width, Geo::OUT_TILE_W),
                  ceil_div<unsigned>(a.height, Geo::OUT_TILE_H * TILES_PER_BLOCK));
  // float4 accesses need every row to start on a 16-byte boundary.
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (a.width % 4 == 0 && aligned(a.in) && aligned(a.out))
    convolution_2D_register_tiled_kernel<R, true, BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, FILTER_ROWS, MIN_BLOCKS>
        <<<grid, block>>>(a.in, a.out, a.width, a.height);
  else
    convolution_2D_register_tiled_kernel<R, false, BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, FILTER_ROWS, MIN_BLOCKS>
        <<<grid, block>>>(a.in, a.out, a.width, a.height);
  CUDA_CHECK_LAUNCH();
  const std::size_t shared_bytes = sizeof(float) * Geo::IN_TILE_W * Geo::IN_TILE_H;
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes};
}

LaunchConfig convolution_2D_register_tiled(const Conv2dArgs& a) {
  LaunchConfig config;
  with_filter_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    constexpr RegisterTiling t = register_tiling(R);
    config = launch_register_tiled<R, t.block_x, t.block_y, t.coarse_y, t.tiles_per_block, t.filter_rows,
                                   t.min_blocks>(a);
  });
  return config;
}

}  // namespace pmpp::ch07
