// =================================================================================================
// Stage 02: the filter in constant memory (PMPP 4th ed., section 7.3, Fig 7.9)
//
// What it is:  stage 01's kernel, one thread per output pixel, with the filter read from the
//              `__constant__` array F_c instead of through a pointer argument.
// Changed:     F is no longer a kernel parameter: the host copies it once into constant memory
//              (cudaMemcpyToSymbol, from host memory), and FILTER_RADIUS is a compile-time constant,
//              so the tap loops have fixed trip counts. The filter is small, read-only during the
//              kernel, and every thread of a warp reads the same element at the same time: exactly
//              what the constant cache broadcasts. The text's model no longer counts filter loads
//              as DRAM traffic: 2 operations per 4 bytes, 0.5 OP/B.
// Limitation:  every tap still loads a pixel from global memory, and each pixel is loaded by
//              (2r+1)^2 threads. Stage 03 loads each input tile once into shared memory.
// Preconditions: width, height >= 1; 1 <= radius <= MAX_FILTER_RADIUS; the filter uploaded with
//              convolution_2D_const_mem_upload_filter before the launch.
// =================================================================================================
#include <cuda_runtime.h>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <int FILTER_RADIUS>
__global__ void convolution_2D_const_mem_kernel(const float* __restrict__ N, float* __restrict__ P, int width,
                                                int height) {
  constexpr int FILTER_DIM = 2 * FILTER_RADIUS + 1;
  const int outCol = blockIdx.x * blockDim.x + threadIdx.x;
  const int outRow = blockIdx.y * blockDim.y + threadIdx.y;
  // The grid is rounded up to whole blocks, so the last blocks hang over the image's edge.
  if (outCol >= width || outRow >= height) return;

  float Pvalue = 0.0f;
  for (int fRow = 0; fRow < FILTER_DIM; ++fRow) {
    const int inRow = outRow - FILTER_RADIUS + fRow;
    if (inRow < 0 || inRow >= height) continue;  // a whole filter row of ghost cells
    for (int fCol = 0; fCol < FILTER_DIM; ++fCol) {
      const int inCol = outCol - FILTER_RADIUS + fCol;
      // F_c's index does not depend on the thread: the whole warp reads one constant-cache entry.
      if (inCol >= 0 && inCol < width)
        Pvalue += F_c[fRow * FILTER_DIM + fCol] * N[static_cast<long long>(inRow) * width + inCol];
    }
  }
  P[static_cast<long long>(outRow) * width + outCol] = Pvalue;
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

void convolution_2D_const_mem_upload_filter(const float* host_filter, int radius) {
  upload_filter_to_constant_memory(host_filter, radius);
}

LaunchConfig convolution_2D_const_mem(const Conv2dArgs& a) {
  // Stage 01's decomposition, unchanged: one thread per output pixel, 32 x 32 threads per block,
  // threadIdx.x along a row so that a warp reads 32 consecutive pixels.
  const dim3 block(BASIC_BLOCK_DIM, BASIC_BLOCK_DIM);
  const dim3 grid(ceil_div<unsigned>(a.width, block.x), ceil_div<unsigned>(a.height, block.y));
  with_filter_radius(a.radius, [&](auto r) {
    convolution_2D_const_mem_kernel<decltype(r)::value><<<grid, block>>>(a.in, a.out, a.width, a.height);
  });
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0};
}

}  // namespace pmpp::ch07
