// =================================================================================================
// Stage 05: register-tiled, software-pipelined convolution (beyond the text)
//
// What it is:  a block of BLOCK_X x BLOCK_Y threads walks down a column of TILES_PER_BLOCK output
//              tiles. For each it copies the input tile (output tile plus halo) into shared memory
//              with 16-byte loads; then each thread computes a 4-wide, COARSE_Y-tall patch of outputs
//              in registers, reading each input row's window from shared memory once and adding it
//              into every output row that needs it (register_tile.cuh, shared with stage 07). The
//              next tile's loads are in flight meanwhile (for the smallest filters, one wide tile per
//              block measured fastest: other blocks' loads fill the wait).
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
#include "ch07_convolution/register_tile.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

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

// VECTOR_IO: rows start on 16-byte boundaries, so loads and stores move float4s. A template
// parameter rather than a run-time flag, so that the scalar variant's registers do not limit the
// occupancy of the float4 one.
template <int FILTER_RADIUS, bool VECTOR_IO, int BLOCK_X, int BLOCK_Y, int COARSE_Y, int TILES_PER_BLOCK,
          int FILTER_ROWS, int MIN_BLOCKS>
__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y, MIN_BLOCKS)
    convolution_2D_register_tiled_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height) {
  using Geo = TileGeometry<BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, FILTER_RADIUS>;
  constexpr int HALO = Geo::HALO, IN_TILE_W = Geo::IN_TILE_W, IN_TILE_H = Geo::IN_TILE_H;
  constexpr int OUT_TILE_W = Geo::OUT_TILE_W, OUT_TILE_H = Geo::OUT_TILE_H;
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
    add_filter<FILTER_RADIUS, HALO, FILTER_ROWS>(acc, N_s, outX, outY);
    store_outputs<VECTOR_IO>(acc, P, width, height, tileRow0 + outY, tileCol0 + outX);
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
