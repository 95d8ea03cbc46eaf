// =================================================================================================
// Exercise 7.3: tiled 2D convolution with output-tile-sized blocks     15 points · PMPP 4th ed., 7.4
//
// Task:        section 7.4 names two ways to organize the threads of a tiled convolution and shows
//              the first (blocks as large as the input tile, Fig 7.12). Write the second: blocks as
//              large as the *output* tile. Every thread then computes one output and no thread idles
//              in the compute phase, but the input tile is larger than the block, so the threads
//              must loop to load it, halo included. The filter is in constant memory, uploaded for
//              you; the launcher is written. Fill in TODO(ex07.3); the starter loads only the tile's
//              interior and computes only the centre tap.
// Interface:   conv2d_output_tiled.hpp (do not change it: the tests call it).
// Tests:       tests/exercises/ch07/test_conv2d_output_tiled.cpp. Outputs poisoned with NaN and
//              framed by guard bands; inputs checked unchanged.
//                7 points  small integers, bit-exact: 1x1, single rows and columns, 31/32/33 (tile
//                          +- 1), primes, non-square both ways; every radius 0..MAX_RADIUS_2D;
//                          asymmetric filters
//                3 points  random floats, within the rounding bound of (2r+1)^2 float additions
//                3 points  a one-hot image reproduces the filter rotated by 180 degrees (catches
//                          transposed or flipped indexing)
//                2 points  uploading a new filter (and a new radius) changes the next result
// Try it:      scripts/grade --exercise ex07.3
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch07/conv2d_output_tiled.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ex07 {

static_assert(OUT_TILE_DIM_2D * OUT_TILE_DIM_2D <= 1024, "a block may have at most 1024 threads");
static_assert(sizeof(float) * MAX_IN_TILE_DIM_2D * MAX_IN_TILE_DIM_2D <= 48 * 1024,
              "the input tile must fit the 48 KiB of static shared memory a block may have");

__constant__ float F_c[(2 * MAX_RADIUS_2D + 1) * (2 * MAX_RADIUS_2D + 1)];

// ---- Kernel -------------------------------------------------------------------------------------

// 1024 threads per block leave at most 64 registers per thread: say so, or a kernel that needs more
// compiles fine and then fails to launch.
__global__ void __launch_bounds__(OUT_TILE_DIM_2D * OUT_TILE_DIM_2D)
    convolution_output_tiled_2D_const_mem_kernel(const float* __restrict__ N, float* __restrict__ P, int width,
                                                 int height, int r) {
  // The input tile's top-left pixel: the output tile's, r rows up and r columns left.
  const int tileRow = static_cast<int>(blockIdx.y) * OUT_TILE_DIM_2D - r;
  const int tileCol = static_cast<int>(blockIdx.x) * OUT_TILE_DIM_2D - r;

  // Sized for the largest radius; a smaller radius uses its top-left IN_TILE_DIM x IN_TILE_DIM part.
  __shared__ float N_s[MAX_IN_TILE_DIM_2D][MAX_IN_TILE_DIM_2D];
  // TODO(ex07.3): load the whole input tile, OUT_TILE_DIM_2D + 2r pixels on a side with its top-left
  // pixel at (tileRow, tileCol), into the top-left corner of N_s. It has more pixels than the block has
  // threads, so the threads must loop over it; a pixel outside the image is a ghost cell and loads 0.
  // Only the tile's interior is loaded now, one pixel per thread.
  {
    const int row = tileRow + r + static_cast<int>(threadIdx.y);
    const int col = tileCol + r + static_cast<int>(threadIdx.x);
    const bool inside = row < height && col < width;
    N_s[threadIdx.y + r][threadIdx.x + r] = inside ? N[static_cast<std::int64_t>(row) * width + col] : 0.0f;
  }
  // A thread's window covers pixels other threads loaded: all of them must be in place first.
  __syncthreads();

  const int outRow = static_cast<int>(blockIdx.y) * OUT_TILE_DIM_2D + static_cast<int>(threadIdx.y);
  const int outCol = static_cast<int>(blockIdx.x) * OUT_TILE_DIM_2D + static_cast<int>(threadIdx.x);
  // Every thread owns an output; only tiles on the right and bottom edges hang over the image.
  if (outRow < height && outCol < width) {
    const int dim = 2 * r + 1;
    // TODO(ex07.3): add up all (2r+1)^2 taps, F_c[fRow * dim + fCol] times the pixel
    // N_s[threadIdx.y + fRow][threadIdx.x + fCol]. Only the centre tap is here now.
    float Pvalue = F_c[r * dim + r] * N_s[threadIdx.y + r][threadIdx.x + r];
    P[static_cast<std::int64_t>(outRow) * width + outCol] = Pvalue;
  }
}

// ---- Launcher -----------------------------------------------------------------------------------

namespace {
void check_radius(const char* who, int radius) {
  if (radius < 0 || radius > MAX_RADIUS_2D)
    throw std::invalid_argument(std::string(who) + ": radius must be in [0, " + std::to_string(MAX_RADIUS_2D) +
                                "], got " + std::to_string(radius));
}
}  // namespace

void convolution_output_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius) {
  check_radius("convolution_output_tiled_2D_const_mem_upload_filter", radius);
  const int dim = 2 * radius + 1;
  CUDA_CHECK(cudaMemcpyToSymbol(F_c, host_filter, sizeof(float) * dim * dim));
}

void convolution_output_tiled_2D_const_mem(const float* in, float* out, int width, int height, int radius) {
  check_radius("convolution_output_tiled_2D_const_mem", radius);
  if (width < 1 || height < 1 || height > 65535 * OUT_TILE_DIM_2D)
    throw std::invalid_argument("convolution_output_tiled_2D_const_mem: need width >= 1 and 1 <= height <= " +
                                std::to_string(65535 * OUT_TILE_DIM_2D) + ", got " + std::to_string(width) + " x " +
                                std::to_string(height));
  // One thread per output pixel of an OUT_TILE_DIM_2D^2 tile; whole tiles cover the image.
  const dim3 block(OUT_TILE_DIM_2D, OUT_TILE_DIM_2D);
  const dim3 grid(ceil_div<unsigned>(width, OUT_TILE_DIM_2D), ceil_div<unsigned>(height, OUT_TILE_DIM_2D));
  convolution_output_tiled_2D_const_mem_kernel<<<grid, block>>>(in, out, width, height, radius);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ex07
