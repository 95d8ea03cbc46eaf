// =================================================================================================
// Image filter: 2D convolution of 8-bit multi-channel pictures (PMPP 4th ed., sections 7.3-7.4,
// Fig 7.9 and Fig 7.12, applied to images; the register tiles of stage 05)
//
// What it is:  the mask lives in __constant__ memory (Fig 7.9). A block stages its input tile (the
//              output tile plus the mask's halo, clamped to the image's edge) in shared memory
//              (Fig 7.12), converted from interleaved bytes to one float plane per channel. Then
//              each thread computes a COARSE_X x COARSE_Y patch of one channel in registers, walking
//              down its input rows as stage 05 does, rounds the sums to bytes into a shared output
//              tile, and the block writes that tile back with wide, aligned stores.
// Changed:     against the plain form (one output byte per thread, a clamped global load and a
//              conversion per tap), every input byte is loaded (4 to 16 bytes a load), clamped and
//              converted once per tile; a float read from shared memory serves up to COARSE_X x mask
//              height FMAs; and for the square masks compiled below every weight is a constant-bank
//              operand of its FMA.
// Bit-exact:   each output still gets its own chain of fused multiply-adds, mask rows top to bottom,
//              each row left to right, starting from 0, then to_pixel(): the CPU reference's order
//              (image_reference.cpp). Register tiling reorders which *output* is advanced when,
//              never the order of the taps within one output.
// Limitation:  instruction issue, not memory: the byte staging, shared-memory reads, rounding and byte
//              stores around the FMAs. A bit-exact result rules out fewer FMAs (no separable passes, no
//              shared partial sums); what is left to win is fewer other instructions per output, e.g.
//              taller register tiles so that each shared load serves more outputs.
// Preconditions: 1 <= width, height; 1 <= channels <= 4; width * channels and height below
//              2^31 - 1024; mask sides odd in [1, MAX_MASK_DIM] and equal to the last
//              upload_image_mask(); in and out do not overlap. Wide loads and stores need
//              width % 4 == 0 and 16-byte aligned buffers; otherwise the same kernel moves bytes.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch07_convolution/image_filter/image.hpp"
#include "ch07_convolution/image_filter/image_pixel.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

namespace {
// The mask, row-major. In an unnamed namespace so that no other stage's __constant__ array can
// clash with it at link time.
__constant__ float M_image[MAX_MASK_DIM * MAX_MASK_DIM];
static_assert(sizeof(float) * MAX_MASK_DIM * MAX_MASK_DIM <= 64 * 1024, "constant memory holds 64 KiB");

constexpr int COARSE_X = 4;                     // outputs per thread along a row: one float4 of a plane
constexpr int COARSE_Y = 8;                     // outputs per thread down a column
constexpr int BLOCK_X = 16;                     // threads across a tile; blockDim.z is the channel
constexpr int BLOCK_Y = 4;
constexpr int OUT_TILE_W = BLOCK_X * COARSE_X;  // 64 pixels
constexpr int OUT_TILE_H = BLOCK_Y * COARSE_Y;  // 32 rows
// Staging unit: 4 pixels, i.e. 4 x channels bytes = whole 32-bit words for every channel count, so
// each byte's pixel and channel within the unit are compile-time constants.
constexpr int QUAD = 4;
constexpr int STAGING_WORDS = 16;               // words a thread holds in flight while staging
constexpr unsigned MAX_GRID_Y = 65535;
// At least 12 / C blocks of 64 C threads (768 threads) per SM: that caps registers at 80, which
// every compiled shape fits without spilling, and leaves other blocks computing while one stages.
constexpr int MIN_BLOCKS_TIMES_C = 12;
constexpr std::size_t DEFAULT_SHARED_LIMIT = 48 * 1024;  // above this a kernel must opt in

static_assert(COARSE_X == QUAD, "a thread's outputs of one row are one float4 of its plane");
static_assert(BLOCK_X % 8 == 0, "8 threads of a row read 128 contiguous bytes of shared memory: no bank conflict");
static_assert(OUT_TILE_W % QUAD == 0, "output tiles are whole staging units");

/// Halo columns staged on each side: the radius rounded up to whole float4s, so that every plane row
/// and every thread's window starts on a 16-byte boundary, and staging units never straddle it.
PMPP_HOST_DEVICE constexpr int halo_pad(int radius) { return (radius + QUAD - 1) / QUAD * QUAD; }

/// Dynamic shared memory of one block: a float plane per channel, then the output tile of bytes.
constexpr std::size_t tile_shared_bytes(int channels, int mask_width, int mask_height) {
  const int in_w = OUT_TILE_W + 2 * halo_pad(mask_width / 2), in_h = OUT_TILE_H + mask_height - 1;
  return sizeof(float) * channels * in_w * in_h + std::size_t{OUT_TILE_W} * OUT_TILE_H * channels;
}
static_assert(tile_shared_bytes(4, 9, 9) < 64 * 1024, "every compiled mask fits the smallest opt-in limit");
}  // namespace

// ---- Kernel -------------------------------------------------------------------------------------

namespace {

/// Byte @p b of the little-endian words @p w as a float, exactly. 0x4B000000 is 2^23; with the byte
/// as its low mantissa bits it is the float 2^23 + byte, and subtracting 2^23 leaves the byte. Two
/// full-rate instructions instead of a quarter-rate integer-to-float conversion.
template <int C>
__device__ __forceinline__ float byte_as_float(const std::uint32_t (&w)[C], int b) {
  return __int_as_float(static_cast<int>(__byte_perm(w[b / 4], 0x4B000000u, 0x7650u | (b % 4)))) - 8388608.0f;
}

/// A staging unit inside the image, aligned: one 16-, 8- or 4-byte load per 4 x C bytes (C = 3 has
/// no 12-byte load: three words).
template <int C>
__device__ __forceinline__ void load_quad(const std::uint8_t* src, std::uint32_t (&w)[C]) {
  if constexpr (C == 4) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(src));
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else if constexpr (C == 2) {
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(src));
    w[0] = v.x, w[1] = v.y;
  } else {
#pragma unroll
    for (int k = 0; k < C; ++k) w[k] = __ldg(reinterpret_cast<const unsigned int*>(src) + k);
  }
}

/// Any other staging unit: byte by byte, each pixel clamped to the row (clamp-to-edge). Only units
/// at the image's left and right edges come here, or every unit when rows are not word-aligned.
template <int C>
__device__ __forceinline__ void gather_quad_clamped(const std::uint8_t* line, int col, int width,
                                                    std::uint32_t (&w)[C]) {
#pragma unroll
  for (int k = 0; k < C; ++k) w[k] = 0;
#pragma unroll
  for (int p = 0; p < QUAD; ++p) {
    const int src = min(max(col + p, 0), width - 1) * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch) {
      const int b = p * C + ch;
      w[b / 4] |= static_cast<std::uint32_t>(__ldg(line + src + ch)) << (8 * (b % 4));
    }
  }
}

/// Stage image rows row0.. and pixel columns col0.. (inH x inW pixels, clamped to the image) into C
/// float planes of inH x inW. All of a thread's loads are issued before the first one is used, so
/// their latencies overlap instead of adding up.
template <int C>
__device__ __forceinline__ void stage_input_tile(const std::uint8_t* __restrict__ N, float* in_s, int width,
                                                 int height, int row0, int col0, int inW, int inH, bool vector_io,
                                                 int tid) {
  constexpr int THREADS = BLOCK_X * BLOCK_Y * C;
  constexpr int UNROLL = STAGING_WORDS / C;  // units in flight per thread
  const int quadsPerRow = inW / QUAD, units = quadsPerRow * inH, planeSize = inW * inH;
  const long long rowBytes = static_cast<long long>(width) * C;  // 64-bit: images over 2 GiB
  for (int first = 0; first < units; first += UNROLL * THREADS) {
    std::uint32_t words[UNROLL][C];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      const int u = first + k * THREADS + tid;
      if (u >= units) break;
      const int r = u / quadsPerRow;
      const int col = col0 + (u - r * quadsPerRow) * QUAD;
      // Clamp-to-edge: rows above and below the image repeat its first and last row.
      const std::uint8_t* line = N + min(max(row0 + r, 0), height - 1) * rowBytes;
      if (vector_io && col >= 0 && col + QUAD <= width)
        load_quad<C>(line + col * C, words[k]);
      else
        gather_quad_clamped<C>(line, col, width, words[k]);
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      const int u = first + k * THREADS + tid;
      if (u >= units) break;
      const int r = u / quadsPerRow;
      float* dst = in_s + r * inW + (u - r * quadsPerRow) * QUAD;
      // De-interleave: channel ch of the unit's 4 pixels is one aligned float4 of plane ch.
#pragma unroll
      for (int ch = 0; ch < C; ++ch)
        *reinterpret_cast<float4*>(dst + ch * planeSize) =
            make_float4(byte_as_float<C>(words[k], ch), byte_as_float<C>(words[k], C + ch),
                        byte_as_float<C>(words[k], 2 * C + ch), byte_as_float<C>(words[k], 3 * C + ch));
    }
  }
}

/// A MASK_DIM x MASK_DIM mask, fully unrolled. The thread reads each of its COARSE_Y + 2r input rows
/// once (WINDOW floats, as float4s) and adds it, with every mask row that needs it, into up to
/// COARSE_Y output rows. For one output the mask rows still arrive top to bottom: row i meets mask
/// row i - o, which grows with i.
template <int MASK_DIM>
__device__ __forceinline__ void convolve_compiled_mask(const float* plane, int inW, int lx, int ly,
                                                       float (&acc)[COARSE_Y][COARSE_X]) {
  constexpr int R = MASK_DIM / 2;
  constexpr int PAD = halo_pad(R);
  constexpr int WINDOW = COARSE_X + 2 * PAD;
#pragma unroll
  for (int i = 0; i < COARSE_Y + 2 * R; ++i) {
    float w[WINDOW];
    const float4* src = reinterpret_cast<const float4*>(plane + (ly + i) * inW + lx);
#pragma unroll
    for (int q = 0; q < WINDOW / 4; ++q) {
      const float4 v = src[q];
      w[4 * q] = v.x, w[4 * q + 1] = v.y, w[4 * q + 2] = v.z, w[4 * q + 3] = v.w;
    }
#pragma unroll
    for (int fRow = 0; fRow < MASK_DIM; ++fRow) {
      const int o = i - fRow;
      if (o < 0 || o >= COARSE_Y) continue;
#pragma unroll
      for (int fCol = 0; fCol < MASK_DIM; ++fCol) {
        const float m = M_image[fRow * MASK_DIM + fCol];
        // Output column lx + x reads plane column lx + x - R + fCol + PAD, w's index below.
#pragma unroll
        for (int x = 0; x < COARSE_X; ++x) acc[o][x] = fmaf(m, w[x + PAD - R + fCol], acc[o][x]);
      }
    }
  }
}

/// Any other mask shape, loops at run time: one shared-memory load per FMA, so about 4x slower per
/// tap than the compiled shapes, but every mask up to MAX_MASK_DIM works. Same tap order.
__device__ __forceinline__ void convolve_any_mask(const float* plane, int inW, int mw, int mh, int colShift, int lx,
                                                  int ly, float (&acc)[COARSE_Y][COARSE_X]) {
#pragma unroll
  for (int o = 0; o < COARSE_Y; ++o)
    for (int fRow = 0; fRow < mh; ++fRow) {
      const float* src = plane + (ly + o + fRow) * inW + lx + colShift;
      for (int fCol = 0; fCol < mw; ++fCol) {
        const float m = M_image[fRow * mw + fCol];
#pragma unroll
        for (int x = 0; x < COARSE_X; ++x) acc[o][x] = fmaf(m, src[fCol + x], acc[o][x]);
      }
    }
}

/// Write the block's OUT_TILE_H x OUT_TILE_W output tile (interleaved bytes in out_s) to rows row0..
/// and columns col0.. of P, clipped to the image: per unit, one 16-, 8- or 4-byte store per 4 x C
/// bytes where rows are aligned and the unit lies inside the image, bytes otherwise. Consecutive
/// threads write consecutive units, so each warp writes whole 32-byte sectors.
template <int C>
__device__ __forceinline__ void store_output_tile(const std::uint8_t* out_s, std::uint8_t* __restrict__ P, int width,
                                                  int height, int row0, int col0, bool vector_io, int tid) {
  constexpr int THREADS = BLOCK_X * BLOCK_Y * C;
  constexpr int QUADS_PER_ROW = OUT_TILE_W / QUAD, UNITS = QUADS_PER_ROW * OUT_TILE_H;
  const long long rowBytes = static_cast<long long>(width) * C;
#pragma unroll
  for (int k = 0; k < (UNITS + THREADS - 1) / THREADS; ++k) {
    const int u = k * THREADS + tid;
    if (u >= UNITS) break;
    const int r = u / QUADS_PER_ROW, q = u % QUADS_PER_ROW;
    const int row = row0 + r, col = col0 + q * QUAD;
    if (row >= height || col >= width) continue;
    const std::uint8_t* src = out_s + r * (OUT_TILE_W * C) + q * (QUAD * C);
    std::uint8_t* dst = P + row * rowBytes + static_cast<long long>(col) * C;
    if (vector_io && col + QUAD <= width) {
      if constexpr (C == 4) {
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
      } else if constexpr (C == 2) {
        *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
      } else {
#pragma unroll
        for (int w = 0; w < C; ++w)
          reinterpret_cast<unsigned int*>(dst)[w] = reinterpret_cast<const unsigned int*>(src)[w];
      }
    } else {
      const int n = min(width - col, QUAD) * C;
      for (int b = 0; b < n; ++b) dst[b] = src[b];
    }
  }
}

}  // namespace

// C: channels, interleaved. MASK_DIM: a square mask side compiled in, or 0 for any shape read from
// mask_width x mask_height at run time. vector_io: rows start on word boundaries (width % 4 == 0)
// and the buffers are 16-byte aligned, so units inside the image move as whole words.
template <int C, int MASK_DIM>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y * C, MIN_BLOCKS_TIMES_C / C)
    convolution_2D_const_mem_image_kernel(const std::uint8_t* __restrict__ N, std::uint8_t* __restrict__ P, int width,
                                          int height, int mask_width, int mask_height, bool vector_io) {
  extern __shared__ float4 image_tile_smem[];
  const int mw = MASK_DIM > 0 ? MASK_DIM : mask_width;
  const int mh = MASK_DIM > 0 ? MASK_DIM : mask_height;
  const int rx = mw / 2, ry = mh / 2, pad = halo_pad(rx);
  const int inW = OUT_TILE_W + 2 * pad, inH = OUT_TILE_H + 2 * ry;
  float* const in_s = reinterpret_cast<float*>(image_tile_smem);
  std::uint8_t* const out_s = reinterpret_cast<std::uint8_t*>(in_s + C * inW * inH);

  const int c = static_cast<int>(threadIdx.z);  // this thread's channel: a warp never mixes channels
  const int tid = (c * BLOCK_Y + static_cast<int>(threadIdx.y)) * BLOCK_X + static_cast<int>(threadIdx.x);
  const int lx = static_cast<int>(threadIdx.x) * COARSE_X, ly = static_cast<int>(threadIdx.y) * COARSE_Y;
  const float* const plane = in_s + c * inW * inH;
  const int tileCol0 = static_cast<int>(blockIdx.x) * OUT_TILE_W;
  const int tilesY = (height + OUT_TILE_H - 1) / OUT_TILE_H;

  // gridDim.y stops at 65535, so blocks step down the image until every tile row is done. The
  // condition is the same for the whole block, so no thread misses a barrier.
  for (int tileY = static_cast<int>(blockIdx.y); tileY < tilesY; tileY += static_cast<int>(gridDim.y)) {
    const int tileRow0 = tileY * OUT_TILE_H;
    // in_s is free: every thread passed the previous tile's second barrier after its last read.
    stage_input_tile<C>(N, in_s, width, height, tileRow0 - ry, tileCol0 - pad, inW, inH, vector_io, tid);
    __syncthreads();  // the input tile is in place

    float acc[COARSE_Y][COARSE_X] = {};
    if constexpr (MASK_DIM > 0)
      convolve_compiled_mask<MASK_DIM>(plane, inW, lx, ly, acc);
    else
      convolve_any_mask(plane, inW, mw, mh, pad - rx, lx, ly, acc);
    // out_s is free: every thread finished the previous tile's stores before the barrier above.
#pragma unroll
    for (int o = 0; o < COARSE_Y; ++o)
#pragma unroll
      for (int x = 0; x < COARSE_X; ++x) out_s[(ly + o) * (OUT_TILE_W * C) + (lx + x) * C + c] = to_pixel(acc[o][x]);
    __syncthreads();  // the output tile is complete, and nobody reads in_s any more

    store_output_tile<C>(out_s, P, width, height, tileRow0, tileCol0, vector_io, tid);
  }
}

// ---- Launcher -----------------------------------------------------------------------------------

void upload_image_mask(const Mask& mask) {
  validate_mask(mask);
  // The source is host memory, so the default (host-to-device) copy is the right one.
  CUDA_CHECK(cudaMemcpyToSymbol(M_image, mask.weights.data(), mask.weights.size() * sizeof(float)));
}

namespace {

template <int C, int MASK_DIM>
LaunchConfig launch_image_kernel(const ImageFilterArgs& a, bool vector_io) {
  // z: one slice of threads per channel. x, y: each thread owns COARSE_X x COARSE_Y outputs, so a
  // block covers one OUT_TILE_W x OUT_TILE_H tile; the grid covers the image in tiles, y capped (the
  // kernel loops over the rest).
  const dim3 block(BLOCK_X, BLOCK_Y, C);
  const dim3 grid(ceil_div<unsigned>(a.width, OUT_TILE_W),
                  std::min(ceil_div<unsigned>(a.height, OUT_TILE_H), MAX_GRID_Y));
  const std::size_t shared = tile_shared_bytes(C, a.mask_width, a.mask_height);
  const auto kernel = convolution_2D_const_mem_image_kernel<C, MASK_DIM>;
  if (shared > DEFAULT_SHARED_LIMIT) {  // 4 channels with a 9 x 9 mask, or large masks
    const int optin = current_shared_per_block_optin();
    if (shared > static_cast<std::size_t>(optin))
      throw std::invalid_argument("filter_image: a " + std::to_string(a.mask_width) + " x " +
                                  std::to_string(a.mask_height) + " mask on " + std::to_string(C) + " channels needs " +
                                  std::to_string(shared) + " B of shared memory per block; this GPU allows " +
                                  std::to_string(optin));
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  }
  kernel<<<grid, block, shared>>>(a.in, a.out, a.width, a.height, a.mask_width, a.mask_height, vector_io);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared};
}

/// Square masks up to 9 x 9 (the named filters' usual sizes) get a kernel with the mask's size
/// compiled in; any other shape runs the run-time-loop kernel.
template <int C>
LaunchConfig launch_for_mask(const ImageFilterArgs& a, bool vector_io) {
  if (a.mask_width == a.mask_height) switch (a.mask_width) {
      case 3: return launch_image_kernel<C, 3>(a, vector_io);
      case 5: return launch_image_kernel<C, 5>(a, vector_io);
      case 7: return launch_image_kernel<C, 7>(a, vector_io);
      case 9: return launch_image_kernel<C, 9>(a, vector_io);
      default: break;
    }
  return launch_image_kernel<C, 0>(a, vector_io);
}

}  // namespace

LaunchConfig filter_image(const ImageFilterArgs& a) {
  auto odd_in_range = [](int side) { return side >= 1 && side <= MAX_MASK_DIM && side % 2 == 1; };
  // The kernel's int arithmetic runs up to a tile and its halo past the last column and row.
  constexpr long long kIndexLimit = INT_MAX - 1024;
  if (a.width < 1 || a.height < 1 || a.channels < 1 || a.channels > MAX_IMAGE_CHANNELS)
    throw std::invalid_argument("filter_image: need width, height >= 1 and 1 to 4 channels, got " +
                                std::to_string(a.width) + " x " + std::to_string(a.height) + " x " +
                                std::to_string(a.channels));
  if (static_cast<long long>(a.width) * a.channels > kIndexLimit || a.height > kIndexLimit)
    throw std::invalid_argument("filter_image: a row of " + std::to_string(a.width) + " x " +
                                std::to_string(a.channels) + " bytes or " + std::to_string(a.height) +
                                " rows do not fit the kernel's int indices (limit 2^31 - 1024)");
  if (!odd_in_range(a.mask_width) || !odd_in_range(a.mask_height))
    throw std::invalid_argument("filter_image: mask sides must be odd and in [1, " + std::to_string(MAX_MASK_DIM) +
                                "], got " + std::to_string(a.mask_width) + " x " + std::to_string(a.mask_height));
  if (a.in == nullptr || a.out == nullptr) throw std::invalid_argument("filter_image: null image pointer");

  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vector_io = a.width % QUAD == 0 && aligned(a.in) && aligned(a.out);
  switch (a.channels) {
    case 1: return launch_for_mask<1>(a, vector_io);
    case 2: return launch_for_mask<2>(a, vector_io);
    case 3: return launch_for_mask<3>(a, vector_io);
    default: return launch_for_mask<4>(a, vector_io);
  }
}

}  // namespace pmpp::ch07
