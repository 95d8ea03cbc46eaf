// =================================================================================================
// Stage 01: basic 2D convolution (PMPP 4th ed., section 7.2, Fig 7.7)
//
// What it is:  one thread per output pixel; each thread walks the (2r+1)^2 filter, skipping taps that
//              fall outside the image (ghost cells are zero), and writes one output.
// Changed:     first stage. This file also shows the host side in the open: cudaMalloc, cudaMemcpy,
//              launch, copy back, cudaFree, each checked (convolution_2D_basic_round_trip). Every
//              later stage uses pmpp::DeviceBuffer, which is that round trip made exception-safe.
// Limitation:  every tap loads both a pixel and a filter value from global memory: 2 operations per
//              8 bytes, 0.25 OP/B in the text's model. The filter is the same for every thread, which
//              motivates stage 02 (constant memory).
// Preconditions: width, height >= 1; 0 <= radius; filter has (2r+1)^2 values.
// =================================================================================================
#include <cuda_runtime.h>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
__global__ void convolution_2D_basic_kernel(const float* __restrict__ N, const float* __restrict__ F,
                                            float* __restrict__ P, int r, int width, int height) {
  const int outCol = blockIdx.x * blockDim.x + threadIdx.x;
  const int outRow = blockIdx.y * blockDim.y + threadIdx.y;
  // The grid is rounded up to whole blocks, so the last blocks hang over the image's edge.
  if (outCol >= width || outRow >= height) return;

  const int dim = 2 * r + 1;
  float Pvalue = 0.0f;
  for (int fRow = 0; fRow < dim; ++fRow) {
    const int inRow = outRow - r + fRow;
    if (inRow < 0 || inRow >= height) continue;  // a whole filter row of ghost cells
    for (int fCol = 0; fCol < dim; ++fCol) {
      const int inCol = outCol - r + fCol;
      // Ghost cells contribute zero; this branch diverges only in warps on the image's border.
      if (inCol >= 0 && inCol < width)
        Pvalue += F[fRow * dim + fCol] * N[static_cast<long long>(inRow) * width + inCol];
    }
  }
  P[static_cast<long long>(outRow) * width + outCol] = Pvalue;
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

//! [launcher]
LaunchConfig convolution_2D_basic(const Conv2dArgs& a) {
  // One thread per output pixel; 32 x 32 = 1024 threads, the most a block may have, with threadIdx.x
  // along a row so that a warp reads 32 consecutive pixels (coalesced).
  const dim3 block(BASIC_BLOCK_DIM, BASIC_BLOCK_DIM);
  const dim3 grid(ceil_div<unsigned>(a.width, block.x), ceil_div<unsigned>(a.height, block.y));
  convolution_2D_basic_kernel<<<grid, block>>>(a.in, a.filter, a.out, a.radius, a.width, a.height);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0};
}
//! [launcher]

//! [round_trip]
void convolution_2D_basic_round_trip(const float* in, const float* filter, float* out, int width, int height,
                                     int radius) {
  const size_t image_bytes = sizeof(float) * static_cast<size_t>(width) * height;
  const size_t filter_bytes = sizeof(float) * filter_dim(radius) * filter_dim(radius);

  float *N_d = nullptr, *F_d = nullptr, *P_d = nullptr;
  CUDA_CHECK(cudaMalloc(&N_d, image_bytes));
  CUDA_CHECK(cudaMalloc(&F_d, filter_bytes));
  CUDA_CHECK(cudaMalloc(&P_d, image_bytes));
  CUDA_CHECK(cudaMemcpy(N_d, in, image_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(F_d, filter, filter_bytes, cudaMemcpyHostToDevice));
  // 0xFF bytes are a float NaN: an output pixel the kernel forgets to write cannot pass the check.
  CUDA_CHECK(cudaMemset(P_d, 0xFF, image_bytes));

  convolution_2D_basic({N_d, F_d, P_d, width, height, radius});
  CUDA_CHECK(cudaDeviceSynchronize());  // errors inside the kernel surface here

  CUDA_CHECK(cudaMemcpy(out, P_d, image_bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(N_d));
  CUDA_CHECK(cudaFree(F_d));
  CUDA_CHECK(cudaFree(P_d));
  // Written out like this, any failing check above leaks the three buffers: the reason every other
  // stage uses pmpp::DeviceBuffer.
}
//! [round_trip]

}  // namespace pmpp::ch07
