// =================================================================================================
// Exercise 7.5: tiled 3D convolution, filter in constant memory   20 points · PMPP 4th ed., 7.3-7.4
//
// Task:        the tiled kernel of section 7.4 (Fig 7.12) in three dimensions. Blocks are as large as
//              the input tile, IN_TILE_DIM_3D^3 threads: each loads one voxel of the tile into shared
//              memory (a ghost cell loads 0), the block waits at a barrier, then the threads of the
//              inner (IN_TILE_DIM_3D - 2r)^3 cube each compute one output from shared memory. Mind
//              the limits a third dimension runs into: 1024 threads per block and 48 KiB of static
//              shared memory (see conv3d_tiled.hpp for why the tile is 8). The filter upload and the
//              launcher are written. Fill in TODO(ex07.5); the starter leaves the tile zero.
// Interface:   conv3d_tiled.hpp (do not change it: the tests call it).
// Tests:       tests/exercises/ch07/test_conv3d_tiled.cpp. Outputs poisoned with NaN and framed by
//              guard bands; inputs checked unchanged.
//                8 points  small integers, bit-exact: 1x1x1, lines along each axis, sizes around the
//                          output tile (a multiple, +- 1), primes, non-cubic; every radius 0..3;
//                          asymmetric filters
//                4 points  random floats, within the rounding bound of (2r+1)^3 float additions
//                4 points  a one-hot volume reproduces the filter reversed along all three axes
//                4 points  uploading a new filter (and a new radius) changes the next result, and a
//                          second run gives the same result
// Try it:      scripts/grade --exercise ex07.5
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch07/conv3d_tiled.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ex07 {

static_assert(IN_TILE_DIM_3D * IN_TILE_DIM_3D * IN_TILE_DIM_3D <= 1024, "a block may have at most 1024 threads");
static_assert(sizeof(float) * IN_TILE_DIM_3D * IN_TILE_DIM_3D * IN_TILE_DIM_3D <= 48 * 1024,
              "the tile must fit the 48 KiB of static shared memory a block may have");
static_assert(2 * MAX_RADIUS_3D < IN_TILE_DIM_3D, "every block must keep at least one output");

constexpr int kMaxTaps3D = (2 * MAX_RADIUS_3D + 1) * (2 * MAX_RADIUS_3D + 1) * (2 * MAX_RADIUS_3D + 1);
__constant__ float F_c[kMaxTaps3D];

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void convolution_tiled_3D_const_mem_kernel(const float* __restrict__ N, float* __restrict__ P, int nx,
                                                      int ny, int nz, int r) {
  const int OUT_TILE_DIM = IN_TILE_DIM_3D - 2 * r;
  // The voxel this thread loads: the block's output tile starts at blockIdx * OUT_TILE_DIM on each
  // axis, its input tile r voxels earlier. For the threads that compute, it is also their output.
  const int x = static_cast<int>(blockIdx.x) * OUT_TILE_DIM + static_cast<int>(threadIdx.x) - r;
  const int y = static_cast<int>(blockIdx.y) * OUT_TILE_DIM + static_cast<int>(threadIdx.y) - r;
  const int z = static_cast<int>(blockIdx.z) * OUT_TILE_DIM + static_cast<int>(threadIdx.z) - r;
  const std::int64_t voxel = (static_cast<std::int64_t>(z) * ny + y) * nx + x;  // 64-bit: volumes over 2^31

  __shared__ float N_s[IN_TILE_DIM_3D][IN_TILE_DIM_3D][IN_TILE_DIM_3D];
  // TODO(ex07.5): load the voxel (x, y, z) into N_s[threadIdx.z][threadIdx.y][threadIdx.x], or 0 when it
  // lies outside the volume (a ghost cell: check all six faces).
  N_s[threadIdx.z][threadIdx.y][threadIdx.x] = 0.0f;
  // An output's window spans voxels that other threads loaded: all of them must be in place first.
  __syncthreads();

  // Threads within r of a tile face only loaded halo voxels; the inner cube computes.
  const int tileX = static_cast<int>(threadIdx.x) - r;
  const int tileY = static_cast<int>(threadIdx.y) - r;
  const int tileZ = static_cast<int>(threadIdx.z) - r;
  const bool computes = tileX >= 0 && tileX < OUT_TILE_DIM && tileY >= 0 && tileY < OUT_TILE_DIM && tileZ >= 0 &&
                        tileZ < OUT_TILE_DIM;
  if (computes && x < nx && y < ny && z < nz) {
    const int d = 2 * r + 1;
    // TODO(ex07.5): add up all (2r+1)^3 taps, F_c[(k * d + j) * d + i] times the shared-memory voxel
    // N_s[tileZ + k][tileY + j][tileX + i]. Only the centre tap is here now.
    float Pvalue = F_c[(r * d + r) * d + r] * N_s[threadIdx.z][threadIdx.y][threadIdx.x];
    P[voxel] = Pvalue;
  }
}

// ---- Launcher -----------------------------------------------------------------------------------

namespace {
void check_radius(const char* who, int radius) {
  if (radius < 0 || radius > MAX_RADIUS_3D)
    throw std::invalid_argument(std::string(who) + ": radius must be in [0, " + std::to_string(MAX_RADIUS_3D) +
                                "], got " + std::to_string(radius));
}
}  // namespace

void convolution_tiled_3D_const_mem_upload_filter(const float* host_filter, int radius) {
  check_radius("convolution_tiled_3D_const_mem_upload_filter", radius);
  const int d = 2 * radius + 1;
  CUDA_CHECK(cudaMemcpyToSymbol(F_c, host_filter, sizeof(float) * d * d * d));
}

void convolution_tiled_3D_const_mem(const float* in, float* out, int nx, int ny, int nz, int radius) {
  check_radius("convolution_tiled_3D_const_mem", radius);
  // A block loads an IN_TILE_DIM_3D^3 input tile (one voxel per thread) and computes the inner cube
  // of OUT_TILE_DIM^3 outputs whose windows lie inside it, so whole output tiles cover the volume.
  const int out_tile = IN_TILE_DIM_3D - 2 * radius;
  const long long max_yz = 65535LL * out_tile;  // gridDim.y and gridDim.z are at most 65535
  if (nx < 1 || ny < 1 || nz < 1 || ny > max_yz || nz > max_yz)
    throw std::invalid_argument("convolution_tiled_3D_const_mem: need 1 <= nx and 1 <= ny, nz <= " +
                                std::to_string(max_yz) + " for radius " + std::to_string(radius) + ", got " +
                                std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz));
  const dim3 block(IN_TILE_DIM_3D, IN_TILE_DIM_3D, IN_TILE_DIM_3D);
  const dim3 grid(ceil_div<unsigned>(nx, out_tile), ceil_div<unsigned>(ny, out_tile), ceil_div<unsigned>(nz, out_tile));
  convolution_tiled_3D_const_mem_kernel<<<grid, block>>>(in, out, nx, ny, nz, radius);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ex07
