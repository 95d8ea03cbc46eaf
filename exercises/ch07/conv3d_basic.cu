// =================================================================================================
// Exercise 7.4: basic 3D convolution                              10 points · PMPP 4th ed., 7.1-7.2
//
// Task:        the kernel of section 7.2 (Fig 7.7) in three dimensions: one thread per output voxel,
//              each walking the (2r+1)^3 filter taps and skipping ghost cells outside the volume. The
//              launcher is written; the kernel computes only the centre tap. Fill in TODO(ex07.4).
// Interface:   conv3d_basic.hpp, which also fixes the memory layout (x fastest) and the filter's
//              index order (do not change it: the tests call it).
// Tests:       tests/exercises/ch07/test_conv3d_basic.cpp. Outputs poisoned with NaN and framed by
//              guard bands; inputs checked unchanged.
//                5 points  small integers, bit-exact: 1x1x1, lines along each axis, 31/32/33 along
//                          x (a warp +- 1), primes, non-cubic; every radius 0..3; asymmetric filters
//                2 points  random floats, within the rounding bound of (2r+1)^3 float additions
//                3 points  a one-hot volume reproduces the filter reversed along all three axes
//                          (catches swapped axes)
// Try it:      scripts/grade --exercise ex07.4
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch07/conv3d_basic.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ex07 {

static_assert(BASIC_3D_BLOCK_X * BASIC_3D_BLOCK_Y * BASIC_3D_BLOCK_Z <= 1024, "at most 1024 threads per block");

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void convolution_3D_basic_kernel(const float* __restrict__ N, const float* __restrict__ F,
                                            float* __restrict__ P, int r, int nx, int ny, int nz) {
  const int outX = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int outY = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int outZ = static_cast<int>(blockIdx.z * blockDim.z + threadIdx.z);
  if (outX >= nx || outY >= ny || outZ >= nz) return;  // blocks on the far faces hang over the volume

  const int d = 2 * r + 1;
  // 64-bit: a volume of 2^31 voxels is only 8 GiB.
  const std::int64_t plane = static_cast<std::int64_t>(nx) * ny;
  const std::int64_t voxel = outZ * plane + static_cast<std::int64_t>(outY) * nx + outX;
  // TODO(ex07.4): add up all (2r+1)^3 taps, F[(k * d + j) * d + i] times the input voxel
  // (outX - r + i, outY - r + j, outZ - r + k), skipping ghost cells (inputs outside the volume).
  // Only the centre tap is here now.
  float Pvalue = F[(r * d + r) * d + r] * N[voxel];
  P[voxel] = Pvalue;
}

// ---- Launcher -----------------------------------------------------------------------------------

void convolution_3D_basic(const float* in, const float* filter, float* out, int nx, int ny, int nz, int radius) {
  if (nx < 1 || ny < 1 || nz < 1 || ny > 65535 * BASIC_3D_BLOCK_Y || nz > 65535 * BASIC_3D_BLOCK_Z ||
      radius < 0 || radius > 16)
    throw std::invalid_argument("convolution_3D_basic: need a volume of at least 1x1x1 within the grid limits and "
                                "0 <= radius <= 16, got " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                                std::to_string(nz) + ", radius " + std::to_string(radius));
  // One thread per output voxel; threadIdx.x along x so that a warp's loads and stores coalesce.
  const dim3 block(BASIC_3D_BLOCK_X, BASIC_3D_BLOCK_Y, BASIC_3D_BLOCK_Z);
  const dim3 grid(ceil_div<unsigned>(nx, block.x), ceil_div<unsigned>(ny, block.y), ceil_div<unsigned>(nz, block.z));
  convolution_3D_basic_kernel<<<grid, block>>>(in, filter, out, radius, nx, ny, nz);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ex07
