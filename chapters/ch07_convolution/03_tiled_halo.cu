// =================================================================================================
// Stage 03: tiled convolution, blocks the size of the input tile (PMPP 4th ed., section 7.4, Fig 7.12)
//
// What it is:  each block owns an OUT_TILE_DIM x OUT_TILE_DIM output tile and is launched with one
//              thread per pixel of the matching input tile, IN_TILE_DIM = OUT_TILE_DIM + 2r on a
//              side. Every thread loads one input pixel (or a zero for a ghost cell) into shared
//              memory; after the barrier, the threads of the inner OUT_TILE_DIM square compute one
//              output each from shared memory, and the outer ring of FILTER_RADIUS threads sits out.
// Changed:     input pixels are loaded from global memory once per tile instead of once per tap:
//              the text's model becomes OUT_TILE_DIM^2 (2r+1)^2 2 / (IN_TILE_DIM^2 4) OP/B, 9.57 for a
//              5x5 filter on the 32 x 32 tile, tending to (2r+1)^2 / 2 for huge tiles (Fig 7.14).
//              IN_TILE_DIM is a compile-time constant as in the text; we compile 8, 16 and 32 so that
//              `--tile` can show the Fig 7.14 argument that small tiles waste most of their loads.
// Limitation:  a block is larger than its output tile: (IN^2 - OUT^2) / IN^2 of the threads (23% for
//              r = 2, 44% for r = 4 on the 32 x 32 tile) only load, and the halo is loaded again by
//              every neighbouring tile. Stage 04 stops loading the halo into shared memory.
// Preconditions: width, height >= 1; 1 <= radius <= MAX_FILTER_RADIUS; tile one of 8, 16, 32 (0
//              means 32) with tile > 2r; the filter uploaded with
//              convolution_tiled_2D_const_mem_upload_filter before the launch.
// =================================================================================================
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

// The input tiles compiled below: tiled_in_tile_dims() lists them for the programs and tests.
static_assert(DEFAULT_IN_TILE_DIM == 32, "the launcher compiles input tiles 8, 16 and 32");
static_assert(DEFAULT_IN_TILE_DIM > 2 * MAX_FILTER_RADIUS, "the default tile must work for every radius");

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <int FILTER_RADIUS, int IN_TILE_DIM>
__global__ void convolution_tiled_2D_const_mem_kernel(const float* __restrict__ N, float* __restrict__ P, int width,
                                                      int height) {
  constexpr int FILTER_DIM = 2 * FILTER_RADIUS + 1;
  constexpr int OUT_TILE_DIM = IN_TILE_DIM - 2 * FILTER_RADIUS;
  static_assert(OUT_TILE_DIM > 0, "the input tile must be wider than the filter's halo");

  // This thread's input pixel; for the inner threads it is also the output pixel they compute.
  const int col = static_cast<int>(blockIdx.x * OUT_TILE_DIM + threadIdx.x) - FILTER_RADIUS;
  const int row = static_cast<int>(blockIdx.y * OUT_TILE_DIM + threadIdx.y) - FILTER_RADIUS;

  // Loading the input tile: one pixel per thread, zero for ghost cells, so that the computation
  // below needs no bounds checks on its taps.
  __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM];
  if (row >= 0 && row < height && col >= 0 && col < width)
    N_s[threadIdx.y][threadIdx.x] = N[static_cast<long long>(row) * width + col];
  else
    N_s[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();  // every thread reads pixels other threads loaded

  // Computing the output tile: the outer ring of FILTER_RADIUS threads only loaded halo cells.
  const int tileCol = static_cast<int>(threadIdx.x) - FILTER_RADIUS;
  const int tileRow = static_cast<int>(threadIdx.y) - FILTER_RADIUS;
  if (col >= 0 && col < width && row >= 0 && row < height) {
    if (tileCol >= 0 && tileCol < OUT_TILE_DIM && tileRow >= 0 && tileRow < OUT_TILE_DIM) {
      float Pvalue = 0.0f;
      for (int fRow = 0; fRow < FILTER_DIM; ++fRow)
        for (int fCol = 0; fCol < FILTER_DIM; ++fCol)
          Pvalue += F_c[fRow * FILTER_DIM + fCol] * N_s[tileRow + fRow][tileCol + fCol];
      P[static_cast<long long>(row) * width + col] = Pvalue;
    }
  }
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

void convolution_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius) {
  upload_filter_to_constant_memory(host_filter, radius);
}

namespace {
//! [launcher]
template <int FILTER_RADIUS, int IN_TILE_DIM>
LaunchConfig launch_tiled(const Conv2dArgs& a) {
  constexpr int OUT_TILE_DIM = IN_TILE_DIM - 2 * FILTER_RADIUS;
  // One thread per input-tile pixel; one block per output tile, so the grid covers the image in
  // steps of OUT_TILE_DIM and neighbouring blocks' input tiles overlap by 2r.
  const dim3 block(IN_TILE_DIM, IN_TILE_DIM);
  const dim3 grid(ceil_div<unsigned>(a.width, OUT_TILE_DIM), ceil_div<unsigned>(a.height, OUT_TILE_DIM));
  convolution_tiled_2D_const_mem_kernel<FILTER_RADIUS, IN_TILE_DIM><<<grid, block>>>(a.in, a.out, a.width, a.height);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, sizeof(float) * IN_TILE_DIM * IN_TILE_DIM};
}
//! [launcher]
}  // namespace

LaunchConfig convolution_tiled_2D_const_mem(const Conv2dArgs& a) {
  const int tile = a.tile == 0 ? DEFAULT_IN_TILE_DIM : a.tile;
  if (const std::string why = tiled_tile_error(tile, a.radius, a.height); !why.empty())
    throw std::invalid_argument(why);
  LaunchConfig config;
  with_filter_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    // Only the tiles that leave an output tile for this radius are compiled (tile_error said which).
    if constexpr (8 > 2 * R)
      if (tile == 8) config = launch_tiled<R, 8>(a);
    if constexpr (16 > 2 * R)
      if (tile == 16) config = launch_tiled<R, 16>(a);
    if (tile == 32) config = launch_tiled<R, 32>(a);
  });
  return config;
}

}  // namespace pmpp::ch07
