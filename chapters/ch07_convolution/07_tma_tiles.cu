// =================================================================================================
// Stage 07: stage 05's register tiles, each input tile copied by the TMA (beyond the text; Hopper)
//
// What it is:  stage 05's arithmetic (register_tile.cuh) on input tiles that the Tensor Memory
//              Accelerator copies into shared memory. One thread asks for a whole tile with one
//              instruction, naming its corner in a tensor map (the image's sizes and row pitch, made
//              once on the host). The TMA writes the tile into shared memory, zeros wherever it falls
//              outside the image (the ghost cells), and counts the bytes in on an mbarrier, on which
//              the block's threads wait. A block walks down TILES_PER_BLOCK tiles, BUFFERS of them in
//              flight.
// Changed:     in stage 05 the threads copy each tile themselves: per float4 an address, a load into
//              registers and a store to shared memory, with the next tile's registers held while the
//              current one is computed. Here the copy costs one instruction per tile and no registers,
//              so more warps fit on an SM to hide the FMAs' and the shared reads' latency.
// Limitation:  still (2r+1)^2 FP32 FMAs per pixel, so the FP32 floor still holds. Where DRAM is the
//              limit (r <= 3) the TMA's copies were no faster than stage 05's (the book has the runs).
// Preconditions: compute capability 9.0 and code built for it; width a multiple of 4 and both images
//              16-byte aligned (the TMA needs a row pitch of whole 16 bytes). Where either is missing,
//              skip_reason says so and the launcher runs stage 05's kernel instead, so a call is never
//              wrong. 1 <= radius <= MAX_FILTER_RADIUS; the filter uploaded with
//              convolution_2D_tma_upload_filter before the launch.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "ch07_convolution/register_tile.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"
#include "pmpp/tensor_map.hpp"
#include "pmpp/tma.cuh"

namespace pmpp::ch07 {

LaunchConfig convolution_2D_register_tiled(const Conv2dArgs& args);  // stage 05: the fallback
void convolution_2D_register_tiled_upload_filter(const float* host_filter, int radius);

namespace {

/// Floats from one tile buffer to the next: the TMA writes to 128-byte aligned shared addresses.
__host__ __device__ constexpr int tile_buffer_floats(int in_tile_w, int in_tile_h) { return (in_tile_w * in_tile_h + 31) / 32 * 32; }

}  // namespace

// ---- Kernel -------------------------------------------------------------------------------------

template <int FILTER_RADIUS, int BLOCK_X, int BLOCK_Y, int COARSE_Y, int TILES_PER_BLOCK, int BUFFERS, int FILTER_ROWS>
__global__ void __launch_bounds__(BLOCK_X* BLOCK_Y)
    convolution_2D_tma_kernel(const __grid_constant__ CUtensorMap image, float* __restrict__ P, int width, int height) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // the launcher runs stage 05 on older code
  using Geo = TileGeometry<BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, FILTER_RADIUS>;
  constexpr int HALO = Geo::HALO, IN_TILE_W = Geo::IN_TILE_W, IN_TILE_H = Geo::IN_TILE_H;
  constexpr int OUT_TILE_W = Geo::OUT_TILE_W, OUT_TILE_H = Geo::OUT_TILE_H;
  constexpr int BUFFER = tile_buffer_floats(IN_TILE_W, IN_TILE_H);
  constexpr unsigned TILE_BYTES = sizeof(float) * IN_TILE_W * IN_TILE_H;  // zeros written for ghost cells count too
  extern __shared__ __align__(128) float buffers[];                        // BUFFERS tiles, BUFFER floats apart
  __shared__ std::uint64_t tile_ready[BUFFERS];

  const int tileCol0 = blockIdx.x * OUT_TILE_W;  // first output column of this block's tiles
  const int firstRow = blockIdx.y * (TILES_PER_BLOCK * OUT_TILE_H);
  const int tiles = min(TILES_PER_BLOCK, (height - firstRow + OUT_TILE_H - 1) / OUT_TILE_H);
  const bool copier = threadIdx.x == 0 && threadIdx.y == 0;  // the one thread that talks to the TMA
  const int outX = threadIdx.x * COARSE_X, outY = threadIdx.y * COARSE_Y;

  //! [tma_loop]
  // Tile t goes into buffer t % BUFFERS: its input starts HALO columns left of its outputs (keeping
  // shared rows 16-byte aligned, as in stage 05) and FILTER_RADIUS rows above them.
  const auto request = [&](int t) {
    std::uint64_t* ready = &tile_ready[t % BUFFERS];
    tma::barrier_arrive_expecting(ready, TILE_BYTES);
    tma::copy_box(buffers + t % BUFFERS * BUFFER, &image, tileCol0 - HALO, firstRow + t * OUT_TILE_H - FILTER_RADIUS, ready);
  };
  if (copier) {
    for (int b = 0; b < BUFFERS; ++b) tma::barrier_init(&tile_ready[b], 1);
    tma::barrier_init_fence();
    for (int t = 0; t < BUFFERS && t < tiles; ++t) request(t);
  }
  __syncthreads();  // no thread waits on a barrier before it is initialised

  for (int t = 0; t < tiles; ++t) {
    tma::barrier_wait(&tile_ready[t % BUFFERS], (t / BUFFERS) % 2);  // tile t is in shared memory
    const auto N_s = reinterpret_cast<const float(*)[IN_TILE_W]>(buffers + t % BUFFERS * BUFFER);
    float acc[COARSE_Y][COARSE_X] = {};
    add_filter<FILTER_RADIUS, HALO, FILTER_ROWS>(acc, N_s, outX, outY);
    store_outputs<true>(acc, P, width, height, firstRow + t * OUT_TILE_H + outY, tileCol0 + outX);
    if (t + BUFFERS < tiles) {
      __syncthreads();  // every thread is done reading this buffer before the TMA refills it
      if (copier) request(t + BUFFERS);
    }
  }
  //! [tma_loop]
#endif
}

namespace {

// ---- The tensor map -------------------------------------------------------------------------------

//! [tensor_map]
/// The image as the TMA reads it: a width x height tensor of floats whose rows are width * 4 bytes
/// apart, copied in boxes of box_w x box_h (one input tile). Elements outside it read as zeros.
CUtensorMap image_tensor_map(const float* image, int width, int height, int box_w, int box_h) {
  return float_tensor_map(image, static_cast<std::uint64_t>(width), static_cast<std::uint64_t>(height),
                          sizeof(float) * static_cast<std::uint64_t>(width), static_cast<std::uint32_t>(box_w),
                          static_cast<std::uint32_t>(box_h), BoxLayout::rows, 128);
}
//! [tensor_map]

// ---- Launcher -----------------------------------------------------------------------------------

template <int R, int BLOCK_X, int BLOCK_Y, int COARSE_Y, int TILES_PER_BLOCK, int BUFFERS, int FILTER_ROWS>
LaunchConfig launch_tma(const Conv2dArgs& a) {
  using Geo = TileGeometry<BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, R>;
  static_assert(Geo::IN_TILE_W <= 256 && Geo::IN_TILE_H <= 256, "one TMA copy moves at most 256 x 256 elements");
  static_assert(BUFFERS >= 1 && BUFFERS <= TILES_PER_BLOCK, "1 to TILES_PER_BLOCK tiles in flight");
  const CUtensorMap map = image_tensor_map(a.in, a.width, a.height, Geo::IN_TILE_W, Geo::IN_TILE_H);
  const auto kernel = convolution_2D_tma_kernel<R, BLOCK_X, BLOCK_Y, COARSE_Y, TILES_PER_BLOCK, BUFFERS, FILTER_ROWS>;
  const std::size_t shared_bytes = sizeof(float) * BUFFERS * tile_buffer_floats(Geo::IN_TILE_W, Geo::IN_TILE_H);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid(ceil_div<unsigned>(a.width, Geo::OUT_TILE_W),
                  ceil_div<unsigned>(a.height, Geo::OUT_TILE_H * TILES_PER_BLOCK));
  kernel<<<grid, block, shared_bytes>>>(map, a.out, a.width, a.height);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes};
}

/// The PTX version of the code this GPU runs for this stage: 90 or more has the TMA.
int tma_code_version() {
  cudaFuncAttributes attributes{};
  [[maybe_unused]] constexpr TmaTiling t = tma_tiling(1);  // used in template arguments only
  CUDA_CHECK(cudaFuncGetAttributes(
      &attributes, convolution_2D_tma_kernel<1, t.block_x, t.block_y, t.coarse_y, t.tiles_per_block, t.buffers, t.filter_rows>));
  return attributes.ptxVersion;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

std::string tma_tiles_skip_reason(const Conv2dArgs& a) {
  // What matters is the code this GPU runs: a compute_75 build JIT-compiled on an H100 has no TMA.
  const int version = tma_code_version();
  if (version < 90)
    return "needs compute capability 9.0 (the Tensor Memory Accelerator); this GPU runs this build's compute_" +
           std::to_string(version) + " code";
  if (a.width % 4 != 0)
    return "the TMA needs rows a whole number of 16 bytes apart: width " + std::to_string(a.width) +
           " is not a multiple of 4 (stage 05 runs such images)";
  return "";
}

void convolution_2D_tma_upload_filter(const float* host_filter, int radius) {
  upload_filter_to_constant_memory(host_filter, radius);
  convolution_2D_register_tiled_upload_filter(host_filter, radius);  // for the fallback
}

LaunchConfig convolution_2D_tma(const Conv2dArgs& a) {
  check_filter_radius(a.radius);
  const bool tma_can_copy = a.width % 4 == 0 && aligned16(a.in) && aligned16(a.out) && tma_code_version() >= 90;
  if (!tma_can_copy) return convolution_2D_register_tiled(a);
  LaunchConfig config;
  with_filter_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    constexpr TmaTiling t = tma_tiling(R);
    config = launch_tma<R, t.block_x, t.block_y, t.coarse_y, t.tiles_per_block, t.buffers, t.filter_rows>(a);
  });
  return config;
}

}  // namespace pmpp::ch07
