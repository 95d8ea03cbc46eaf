// =================================================================================================
// Stage 04: tiled convolution with halo cells from the caches (PMPP 4th ed., section 7.5, Fig 7.15)
//
// What it is:  input tile, output tile and block are all TILE_DIM x TILE_DIM. Each thread loads the
//              input pixel at its own output position into shared memory; the taps that fall inside
//              the tile read shared memory, the taps in the halo read global memory, where the
//              neighbouring blocks' own loads have most likely left them in L1 or L2.
// Changed:     no thread sits out (the block is the output tile) and no block loads its neighbours'
//              pixels into shared memory. The text's model counts only the tile's own pixels as
//              DRAM traffic: (2r+1)^2 2 / 4 OP/B, the bound stage 03 only approaches.
// Limitation:  each tap now decides between shared and global memory, and the threads near the
//              tile's edge take the slow branch (divergence inside the warps of the tile's border).
//              Every output still costs (2r+1)^2 loads from shared memory or L1 and one thread per
//              pixel does all the address arithmetic: stage 05 reuses loaded pixels in registers.
// Preconditions: width, height >= 1; 1 <= radius <= MAX_FILTER_RADIUS; the filter uploaded with
//              convolution_cached_tiled_2D_const_mem_upload_filter before the launch.
// =================================================================================================
#include <cuda_runtime.h>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

constexpr int TILE_DIM = CACHED_TILE_DIM;  // the text's 32: a power of two, and 32 x 32 = 1024 threads per block

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <int FILTER_RADIUS>
__global__ void convolution_cached_tiled_2D_const_mem_kernel(const float* __restrict__ N, float* __restrict__ P,
                                                             int width, int height) {
  constexpr int FILTER_DIM = 2 * FILTER_RADIUS + 1;
  const int col = blockIdx.x * TILE_DIM + threadIdx.x;
  const int row = blockIdx.y * TILE_DIM + threadIdx.y;

  // Loading the tile: the pixel under each thread. Threads past the image's edge store a zero,
  // which is also the right value for the ghost cells their neighbours' taps read from N_s.
  __shared__ float N_s[TILE_DIM][TILE_DIM];
  if (row < height && col < width)
    N_s[threadIdx.y][threadIdx.x] = N[static_cast<long long>(row) * width + col];
  else
    N_s[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();  // the taps read pixels other threads loaded

  if (col < width && row < height) {
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < FILTER_DIM; ++fRow) {
      for (int fCol = 0; fCol < FILTER_DIM; ++fCol) {
        const int tileRow = static_cast<int>(threadIdx.y) - FILTER_RADIUS + fRow;
        const int tileCol = static_cast<int>(threadIdx.x) - FILTER_RADIUS + fCol;
        if (tileRow >= 0 && tileRow < TILE_DIM && tileCol >= 0 && tileCol < TILE_DIM) {
          Pvalue += F_c[fRow * FILTER_DIM + fCol] * N_s[tileRow][tileCol];
        } else {
          // A halo cell: another block's interior pixel (usually an L1/L2 hit) or a ghost cell (zero).
          const int inRow = row - FILTER_RADIUS + fRow;
          const int inCol = col - FILTER_RADIUS + fCol;
          if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width)
            Pvalue += F_c[fRow * FILTER_DIM + fCol] * N[static_cast<long long>(inRow) * width + inCol];
        }
      }
    }
    P[static_cast<long long>(row) * width + col] = Pvalue;
  }
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

void convolution_cached_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius) {
  upload_filter_to_constant_memory(host_filter, radius);
}

LaunchConfig convolution_cached_tiled_2D_const_mem(const Conv2dArgs& a) {
  // One thread per output pixel and one block per TILE_DIM x TILE_DIM tile, input and output alike.
  const dim3 block(TILE_DIM, TILE_DIM);
  const dim3 grid(ceil_div<unsigned>(a.width, TILE_DIM), ceil_div<unsigned>(a.height, TILE_DIM));
  with_filter_radius(a.radius, [&](auto r) {
    convolution_cached_tiled_2D_const_mem_kernel<decltype(r)::value><<<grid, block>>>(a.in, a.out, a.width, a.height);
  });
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, sizeof(float) * TILE_DIM * TILE_DIM};
}

}  // namespace pmpp::ch07
