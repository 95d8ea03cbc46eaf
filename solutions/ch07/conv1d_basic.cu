// =================================================================================================
// Exercise 7.1: basic 1D convolution                        10 points · PMPP 4th ed., sections 7.1-7.2
//
// Task:        the kernel of section 7.2 (Fig 7.7) in one dimension: one thread per output element,
//              each thread walks the 2r+1 filter taps and skips the ghost cells beyond either end of
//              the array. The launcher is written; the kernel computes only the centre tap. Fill in
//              TODO(ex07.1).
// Interface:   convolution_1D_basic() in conv1d_basic.hpp (do not change it: the tests call it).
// Tests:       tests/exercises/ch07/test_conv1d_basic.cpp. Outputs are poisoned with NaN and framed
//              by guard bands; inputs are checked unchanged.
//                4 points  small integers, bit-exact: n from 1 to 4099 (odd, prime, block +- 1),
//                          every radius 0..8, asymmetric filters
//                2 points  random floats, within the rounding bound of 2r+1 float additions
//                2 points  a one-hot input reproduces the filter reversed (a flipped filter fails)
//                2 points  n = 2^31 + 1000: indices must be 64-bit (8 GiB arrays, but only
//                          about 100 MiB of GPU memory: the zeros share one block)
// Try it:      scripts/grade --exercise ex07.1
// =================================================================================================
#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "ch07/conv1d_basic.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ex07 {

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void convolution_1D_basic_kernel(const float* __restrict__ x, const float* __restrict__ f,
                                            float* __restrict__ y, std::int64_t n, int r) {
  // 64-bit: past 2^31 elements a 32-bit index wraps negative and slips through the test below.
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;  // the grid is rounded up to whole blocks

  float sum = 0.0f;
  for (int j = 0; j <= 2 * r; ++j) {
    const std::int64_t in = i - r + j;
    // A ghost cell contributes zero. Only threads within r of either end skip taps, so this branch
    // diverges in at most two warps of the whole grid.
    if (in >= 0 && in < n) sum += f[j] * x[in];
  }
  y[i] = sum;
}

// ---- Launcher -----------------------------------------------------------------------------------

void convolution_1D_basic(const float* x, const float* f, float* y, std::int64_t n, int radius) {
  if (n < 0 || radius < 0 || radius > 1024)
    throw std::invalid_argument("convolution_1D_basic: need n >= 0 and 0 <= radius <= 1024, got n = " +
                                std::to_string(n) + ", radius = " + std::to_string(radius));
  if (n == 0) return;  // nothing to do, and a grid of zero blocks is not a valid launch
  // One thread per output element; the last block may be partial.
  const std::int64_t blocks = ceil_div<std::int64_t>(n, BASIC_1D_BLOCK_DIM);
  if (blocks > INT_MAX) throw std::invalid_argument("convolution_1D_basic: n too large for one grid");
  convolution_1D_basic_kernel<<<static_cast<unsigned>(blocks), BASIC_1D_BLOCK_DIM>>>(x, f, y, n, radius);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ex07
