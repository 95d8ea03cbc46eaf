// =================================================================================================
// Exercise 7.2: tiled 1D convolution, filter in constant memory   15 points · PMPP 4th ed., 7.3-7.4
//
// Task:        the tiled kernel of section 7.4 (Fig 7.12) in one dimension. Blocks are as large as
//              the input tile: every thread loads one input element (a ghost cell loads 0), the block
//              waits at a barrier, then the threads whose output lies inside the tile's output part
//              compute it from shared memory, reading the filter from constant memory (section 7.3).
//              The launcher is written. Fill in TODO(ex07.2): the filter upload, the tile load and
//              the taps; the starter copies only the centre tap and leaves the tile zero.
// Interface:   conv1d_tiled_const.hpp (do not change it: the tests call it).
// Tests:       tests/exercises/ch07/test_conv1d_tiled_const.cpp. Outputs poisoned with NaN and
//              framed by guard bands; inputs checked unchanged.
//                5 points  small integers, bit-exact: n from 1 to 4099 (tile +- 1, primes), every
//                          radius 0..MAX_RADIUS_1D, asymmetric filters
//                3 points  random floats, within the rounding bound of 2r+1 float additions
//                2 points  a one-hot input reproduces the filter reversed
//                2 points  uploading a new filter (and a new radius) changes the next result
//                3 points  n = 2^31 + 1000: indices must be 64-bit (8 GiB arrays, but only
//                          about 100 MiB of GPU memory: the zeros share one block)
// Try it:      scripts/grade --exercise ex07.2
// =================================================================================================
#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "ch07/conv1d_tiled_const.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ex07 {

static_assert(2 * MAX_RADIUS_1D < IN_TILE_DIM_1D, "every block must keep at least one output");

// The filter. Every thread of a warp reads the same tap at the same time, which the constant cache
// serves as one broadcast.
__constant__ float F_c[2 * MAX_RADIUS_1D + 1];

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void convolution_tiled_1D_const_mem_kernel(const float* __restrict__ x, float* __restrict__ y,
                                                      std::int64_t n, int r) {
  const int OUT_TILE_DIM = IN_TILE_DIM_1D - 2 * r;
  // Block b computes outputs [b * OUT_TILE_DIM, (b + 1) * OUT_TILE_DIM); its input tile starts r
  // elements earlier. i is both the element this thread loads and, for the threads that compute, the
  // output it computes. 64-bit: n may exceed 2^31.
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * OUT_TILE_DIM + threadIdx.x - r;

  __shared__ float x_s[IN_TILE_DIM_1D];
  // TODO(ex07.2): load x[i] into x_s[threadIdx.x], or 0 when i lies outside [0, n) (a ghost cell).
  x_s[threadIdx.x] = 0.0f;
  // The barrier keeps every thread from reading its neighbours' elements before they are loaded.
  __syncthreads();

  // The first and last r threads loaded halo cells only; the rest each own one output.
  const int tileI = static_cast<int>(threadIdx.x) - r;
  if (tileI >= 0 && tileI < OUT_TILE_DIM && i < n) {
    // TODO(ex07.2): add up the 2r+1 taps F_c[j] * x_s[tileI + j], all from shared memory. Only the
    // centre tap is here now.
    float sum = F_c[r] * x_s[threadIdx.x];
    y[i] = sum;
  }
}

// ---- Launcher -----------------------------------------------------------------------------------

namespace {
void check_radius(const char* who, int radius) {
  if (radius < 0 || radius > MAX_RADIUS_1D)
    throw std::invalid_argument(std::string(who) + ": radius must be in [0, " + std::to_string(MAX_RADIUS_1D) +
                                "], got " + std::to_string(radius));
}
}  // namespace

void convolution_tiled_1D_const_mem_upload_filter(const float* host_f, int radius) {
  check_radius("convolution_tiled_1D_const_mem_upload_filter", radius);
  // TODO(ex07.2): copy all 2r+1 taps into F_c. Only the centre tap is copied now, into its own slot
  // (the last argument is the offset in bytes into the symbol).
  CUDA_CHECK(cudaMemcpyToSymbol(F_c, host_f + radius, sizeof(float), sizeof(float) * radius));
}

void convolution_tiled_1D_const_mem(const float* x, float* y, std::int64_t n, int radius) {
  check_radius("convolution_tiled_1D_const_mem", radius);
  if (n < 0) throw std::invalid_argument("convolution_tiled_1D_const_mem: n must be >= 0");
  if (n == 0) return;  // a grid of zero blocks is not a valid launch
  // A block loads IN_TILE_DIM_1D inputs (one per thread) and computes the IN_TILE_DIM_1D - 2r outputs
  // whose whole window lies inside that tile, so the grid covers n outputs in steps of that many.
  const int out_tile = IN_TILE_DIM_1D - 2 * radius;
  const std::int64_t blocks = ceil_div<std::int64_t>(n, out_tile);
  if (blocks > INT_MAX) throw std::invalid_argument("convolution_tiled_1D_const_mem: n too large for one grid");
  convolution_tiled_1D_const_mem_kernel<<<static_cast<unsigned>(blocks), IN_TILE_DIM_1D>>>(x, y, n, radius);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ex07
