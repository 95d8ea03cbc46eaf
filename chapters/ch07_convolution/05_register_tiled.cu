// =================================================================================================
// Stage 05: register-tiled, software-pipelined convolution (beyond the text)
//
// What it is:  a block of BLOCK_X x BLOCK_Y threads walks down a column of TILES_PER_BLOCK output
//              tiles of OUT_TILE_W x OUT_TILE_H pixels. For each tile it stages the input tile (the
//              output tile plus its halo) in shared memory with 16-byte loads; then each thread
//              computes a 4-wide, COARSE_Y-tall patch of outputs in registers, walking down its
//              column of input rows: it reads one row's window of 4 + 2r pixels from shared memory
//              once and adds it, with every filter row that needs it, into up to COARSE_Y output rows.
//              While a tile is being computed, the loads of the next tile are already in flight.
//              The tiling depends on the radius (register_tiling() in convolution.hpp).
// Changed:     stage 04 spends (2r+1)^2 loads and their address arithmetic on every output; here a
//              loaded pixel serves up to 4 COARSE_Y of the thread's own outputs, so the inner loop is
//              almost nothing but FMAs; up to r = 5 the taps are fully unrolled and every filter value
//              is a constant-bank operand of its FMA. And in stages 03-04 every block loads, waits,
//              computes and leaves: blocks started together stay in step, so the GPU alternates
//              between "all loading" (the SMs idle) and "all computing" (DRAM idle) and the time is
//              the sum of the two. Prefetching the next tile into registers during the computation
//              overlaps them, so the time is their maximum (measured at 8192 x 8192 on an H200, 16 x 16
//              threads of 4 x 4 outputs each: 5x5 from 0.189 to 0.145 ms, 9x9 from 0.294 to 0.246 ms).
//              The halo is still loaded again by the neighbouring tiles, but from L2: DRAM sees
//              about the compulsory 8 bytes a pixel. Ghost cells load zeros from kGhostZeros, so the
//              copy into shared memory needs no test and no select.
//              From r = 6 on, a fully unrolled 4 x COARSE_Y x (2r+1)^2 block of FMAs no longer fits
//              the instruction cache (Nsight Compute: warps stalled on "no instruction"); the filter
//              rows are then added FILTER_ROWS at a time in a loop (add_filter_rows), the filter values
//              read from the constant bank into registers. Measured on an H100 at 8192 x 8192, the
//              radius sweep (ch07_convolution --sweep) went from 59% of the higher floor to 84% at r = 8.
// Limitation:  small filters (r <= 3) are bound by DRAM: measured at 85-88% of the
//              compulsory-traffic floor. Larger ones are bound by instruction issue, below the FP32
//              floor of (2r+1)^2 FMAs per pixel (72% of it at r = 4, 82% at r = 7, 84% at r = 8):
//              at r = 4 Nsight Compute finds issue slots 88% used but only 86% of the instructions
//              FMAs (the rest: the tile's loads and stores, shared-memory reads, loop control), so
//              the FMA pipe runs at 76% of its peak; at r = 8, 96% and 89%, 86%. cuBLAS's FP32
//              matrix product keeps the same pipe at 80%. At r = 4 the two floors nearly coincide
//              (0.160 and 0.1625 ms at 8192 x 8192), so DRAM and the FMA pipe must both be kept
//              busy at once. And the loop alone is short of 85%: with the tile loads removed (each
//              block reusing its first tile: a bound, not a result) the kernel ran at 79.6%, 82.5%,
//              80.9% and 84.2% of the floor at r = 4, 5, 6 and 8. There the instruction mix is the
//              limit, not waiting: at r = 5 the schedulers issue in 96% of the cycles, but only 90%
//              of the instructions are FMAs, and removing the barriers as well changed nothing
//              (81-82%). The FMA pipe itself is not the ceiling: a kernel of independent FMAs alone
//              sustained 97% of the peak-clock rate, the SMs at 1.98 GHz throughout. Also measured
//              on an H100 and not kept: some 40 other tilings (blocks of 8 x 8 to 32 x 4 threads, 2
//              to 8 rows a thread, 1 to 16 tiles a block, filter rows 1 at a time to all at once),
//              1 to 6 blocks an SM in the launch bounds; copying the next tile with cp.async into a
//              second shared buffer instead of through registers (fewer registers, 56 instead of 96
//              at r = 4; 5% slower at r = 4, 1-3% faster at r = 5-7, none near 85%); a persistent
//              grid, as many blocks as fit at once, each taking every gridDim.x-th tile (69-76% at
//              r = 4-8); and no block barrier at all, each warp walking down its own 128-column
//              strip with a ring of input rows in shared memory, filled by cp.async one step ahead
//              (71.5% at r = 4, 75% at r = 8; this stage 71.5% and 84%). A general 2D filter has no
//              cheaper arithmetic; a separable one would (two 1D passes).
// Preconditions: width, height >= 1; 1 <= radius <= MAX_FILTER_RADIUS; the filter uploaded with
//              convolution_2D_register_tiled_upload_filter before the launch. Rows must start on
//              16-byte boundaries (width % 4 == 0, in and out 16-byte aligned) for the float4 path;
//              otherwise the kernel is compiled to load and store one float at a time.
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
