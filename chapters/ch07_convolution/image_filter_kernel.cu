// =================================================================================================
// Image filter: 2D convolution of 8-bit multi-channel pictures (PMPP 4th ed., section 7.3, Fig 7.9,
// applied to images)
//
// What it is:  the constant-memory kernel of Fig 7.9 turned into a picture filter. The mask lives in
//              __constant__ memory; each thread computes one output *sample* (one channel of one
//              pixel), reading 8-bit inputs and writing the sum clamped to [0, 255].
// Changed:     from the chapter's stages: 1 to 4 interleaved channels filtered independently; masks of
//              any odd width x height (non-square); clamp-to-edge borders instead of zero ghost cells
//              (why: image.hpp); bytes in, bytes out, clamped and rounded in the kernel (to_pixel()).
// Why constant memory, not a shared-memory tile: every thread of a warp reads the same mask tap at
//              the same time, the access the constant cache broadcasts, and the mask (at most 31 x 31
//              floats, 3.8 KiB) always fits; the input bytes that neighbouring threads re-read come
//              from L1. Stages 03 and 04 teach tiling; this file teaches channels, masks and clamping
//              in the simplest kernel that has them.
// Limitation:  far from DRAM bandwidth: 2% of peak on an H200 at 8192 x 8192 with a 5 x 5 mask. Each
//              tap costs several instructions (two clamps, an address, a one-byte load, a byte-to-float
//              conversion, an FMA) for 2/25 of a byte of compulsory traffic, so the time goes into
//              instructions, not memory (an estimate; not profiled). The next step: convert each input
//              byte to float once, into a shared-memory tile clamped while it is loaded, leaving one
//              shared load and one FMA per tap.
// Preconditions: 1 <= width, height; 1 <= channels <= 4; width * channels < 2^31; mask sides odd in
//              [1, MAX_MASK_DIM] and equal to the last upload_image_mask(); in and out do not overlap.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch07_convolution/image.hpp"
#include "ch07_convolution/image_pixel.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

namespace {
// The mask, row-major. In an unnamed namespace so that no other stage's __constant__ array can
// clash with it at link time.
__constant__ float M_image[MAX_MASK_DIM * MAX_MASK_DIM];
static_assert(sizeof(float) * MAX_MASK_DIM * MAX_MASK_DIM <= 64 * 1024, "constant memory holds 64 KiB");

constexpr unsigned BLOCK_X = 32;  // one warp along a row: 32 consecutive bytes, one 32-byte sector
constexpr unsigned BLOCK_Y = 8;   // 8 rows per block, whose vertical taps overlap in L1
constexpr unsigned MAX_GRID_Y = 65535;
}  // namespace

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void convolution_2D_const_mem_image_kernel(const std::uint8_t* __restrict__ N, std::uint8_t* __restrict__ P,
                                                      int width, int height, int channels, int mask_width,
                                                      int mask_height) {
  // Threads walk a row's bytes, not its pixels: consecutive threads read consecutive bytes whatever
  // the channel count, and the thread's channel is where its byte falls within the pixel.
  const int rowBytes = width * channels;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= rowBytes) return;
  const int outCol = x / channels;
  const int c = x - outCol * channels;
  const int rx = mask_width / 2, ry = mask_height / 2;

  // gridDim.y stops at 65535, so blocks step down the image until every row is done.
  for (int outRow = blockIdx.y * blockDim.y + threadIdx.y; outRow < height; outRow += gridDim.y * blockDim.y) {
    float Pvalue = 0.0f;
    for (int mRow = 0; mRow < mask_height; ++mRow) {
      // Clamp-to-edge: rows above and below the image repeat its first and last row.
      const int inRow = min(max(outRow - ry + mRow, 0), height - 1);
      const std::uint8_t* line = N + static_cast<long long>(inRow) * rowBytes + c;  // 64-bit: images > 2 GiB
      for (int mCol = 0; mCol < mask_width; ++mCol) {
        const int inCol = min(max(outCol - rx + mCol, 0), width - 1);
        // One fused multiply-add, rounded once, in the reference's order: the bit-exact check rests on it.
        Pvalue = fmaf(M_image[mRow * mask_width + mCol], static_cast<float>(line[inCol * channels]), Pvalue);
      }
    }
    P[static_cast<long long>(outRow) * rowBytes + x] = to_pixel(Pvalue);
  }
}

// ---- Launcher -----------------------------------------------------------------------------------

void upload_image_mask(const Mask& mask) {
  validate_mask(mask);
  // The source is host memory, so the default (host-to-device) copy is the right one.
  CUDA_CHECK(cudaMemcpyToSymbol(M_image, mask.weights.data(), mask.weights.size() * sizeof(float)));
}

LaunchConfig filter_image(const ImageFilterArgs& a) {
  auto odd_in_range = [](int side) { return side >= 1 && side <= MAX_MASK_DIM && side % 2 == 1; };
  if (a.width < 1 || a.height < 1 || a.channels < 1 || a.channels > MAX_IMAGE_CHANNELS)
    throw std::invalid_argument("filter_image: need width, height >= 1 and 1 to 4 channels, got " +
                                std::to_string(a.width) + " x " + std::to_string(a.height) + " x " +
                                std::to_string(a.channels));
  if (static_cast<long long>(a.width) * a.channels > INT_MAX)
    throw std::invalid_argument("filter_image: a row of " + std::to_string(a.width) + " x " +
                                std::to_string(a.channels) + " bytes does not fit the kernel's int column index");
  if (!odd_in_range(a.mask_width) || !odd_in_range(a.mask_height))
    throw std::invalid_argument("filter_image: mask sides must be odd and in [1, " + std::to_string(MAX_MASK_DIM) +
                                "], got " + std::to_string(a.mask_width) + " x " + std::to_string(a.mask_height));
  if (a.in == nullptr || a.out == nullptr) throw std::invalid_argument("filter_image: null image pointer");

  const unsigned row_bytes = static_cast<unsigned>(a.width * a.channels);
  const dim3 block(BLOCK_X, BLOCK_Y);
  // x: one thread per byte of a row; y: one thread per row, capped (the kernel loops over the rest).
  const dim3 grid(ceil_div(row_bytes, block.x), std::min(ceil_div<unsigned>(a.height, block.y), MAX_GRID_Y));
  convolution_2D_const_mem_image_kernel<<<grid, block>>>(a.in, a.out, a.width, a.height, a.channels, a.mask_width,
                                                         a.mask_height);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, 0};
}

}  // namespace pmpp::ch07
