// =================================================================================================
// Stage 05: register-tiled, software-pipelined convolution (beyond the text)
//
// What it is:  a block of BLOCK_X x BLOCK_Y threads walks down a column of TILES_PER_BLOCK output
//              tiles of OUT_TILE_W x OUT_TILE_H pixels. For each tile it stages the input tile (the
//              output tile plus its halo) in shared memory with 16-byte loads; then each thread
//              computes a 4-wide, COARSE_Y-tall patch of outputs in registers, walking down its
//              column of input rows: it reads one row's window of 4 + 2r pixels from shared memory
//              once and adds it, with every filter row that needs it, into up to 2r+1 output rows.
//              While a tile is being computed, the loads of the next tile are already in flight.
// Changed:     stage 04 spends (2r+1)^2 loads and their address arithmetic on every output; here a
//              loaded pixel serves up to 4 (2r+1) of the thread's own outputs, so the inner loop is
//              almost nothing but FMAs whose filter operand comes straight from the constant bank
//              (the taps are fully unrolled, so every F_c index is a compile-time constant). And in
//              stages 03-04 every block loads, waits, computes and leaves: blocks started together
//              stay in step, so the GPU alternates between "all loading" (the SMs idle) and "all
//              computing" (DRAM idle) and the time is the sum of the two. Prefetching the next tile
//              into registers during the computation overlaps them, so the time is their maximum
//              (measured at 8192 x 8192 on an H200, 16 x 16 threads of 4 x 4 outputs each: 5x5 from
//              0.189 to 0.145 ms, 9x9 from 0.294 to 0.246 ms).
//              The halo is still loaded again by the neighbouring tiles, but from L2: DRAM sees
//              about the compulsory 8 bytes a pixel.
// Limitation:  what is left is the hardware: the DRAM floor for small filters and, for large ones,
//              the FP32 floor of (2r+1)^2 FMAs per pixel (a 9 x 9 filter needs 81). A general 2D
//              filter has no cheaper arithmetic; a separable one would (two 1D passes).
// Preconditions: width, height >= 1; 1 <= radius <= MAX_FILTER_RADIUS; the filter uploaded with
//              convolution_2D_register_tiled_upload_filter before the launch. Rows must start on
//              16-byte boundaries (width % 4 == 0, in and out 16-byte aligned) for the float4 path;
//              otherwise the kernel is compiled to load and store one float at a time.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

constexpr int COARSE_X = REGISTER_TILED_COARSE_X;  // outputs per thread along a row: one float4
constexpr int COARSE_Y = REGISTER_TILED_COARSE_Y;  // outputs per thread down a column
constexpr int BLOCK_X = REGISTER_TILED_BLOCK_X;
constexpr int BLOCK_Y = REGISTER_TILED_BLOCK_Y;
constexpr int THREADS = BLOCK_X * BLOCK_Y;
constexpr int OUT_TILE_W = REGISTER_TILED_OUT_W;
constexpr int OUT_TILE_H = REGISTER_TILED_OUT_H;
constexpr int TILES_PER_BLOCK = REGISTER_TILED_TILES_PER_BLOCK;
// Halo columns loaded on each side of the tile: r rounded up to whole float4s.
template <int FILTER_RADIUS>
constexpr int PAD = register_tiled_pad(FILTER_RADIUS);
static_assert(COARSE_X == 4, "one float4 of outputs per thread and row");
static_assert(BLOCK_X % 8 == 0, "8 threads of a row read 128 contiguous bytes of shared memory: no bank conflict");
static_assert(TILES_PER_BLOCK >= 1, "a block computes at least one tile");

// ---- Kernel -------------------------------------------------------------------------------------

// One input tile in flight: fetch() issues every load of this thread's share of the tile into
// registers at once (a load-then-store loop would wait out the memory latency once per unit), and
// store() later writes them to shared memory, zeros for ghost cells. Units are float4s, or floats
// when rows are not 16-byte aligned; shared column c holds image column col0 + c and shared row i
// image row row0 - r + i. A unit outside the image loads the image's first unit instead (always a
// valid address). With col0 and width multiples of 4, a float4 is wholly inside a row or wholly out.
template <class Unit, int FILTER_RADIUS, int IN_TILE_W>
struct InputTileLoad {
  static constexpr int VEC = sizeof(Unit) / sizeof(float);
  static constexpr int UNITS_PER_ROW = IN_TILE_W / VEC;
  static constexpr int UNITS = UNITS_PER_ROW * (OUT_TILE_H + 2 * FILTER_RADIUS);
  static constexpr int PER_THREAD = (UNITS + THREADS - 1) / THREADS;
  Unit v[PER_THREAD];
  bool inside[PER_THREAD];

  __device__ __forceinline__ void fetch(const float* __restrict__ N, int width, int height, int row0, int col0,
                                        int tid) {
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int i = k * THREADS + tid;
      const int inRow = row0 - FILTER_RADIUS + i / UNITS_PER_ROW;
      const int inCol = col0 + i % UNITS_PER_ROW * VEC;
      inside[k] = i < UNITS && inRow >= 0 && inRow < height && inCol >= 0 && inCol < width;
      v[k] = __ldg(reinterpret_cast<const Unit*>(N + (inside[k] ? static_cast<long long>(inRow) * width + inCol : 0)));
    }
  }
  __device__ __forceinline__ void store(float (*N_s)[IN_TILE_W], int tid) const {
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int i = k * THREADS + tid;
      if (i < UNITS) *reinterpret_cast<Unit*>(&N_s[i / UNITS_PER_ROW][i % UNITS_PER_ROW * VEC]) = inside[k] ? v[k] : Unit{};
    }
  }
};

// VECTOR_IO: rows start on 16-byte boundaries, so loads and stores move float4s. A template
// parameter rather than a run-time flag, so that the scalar variant's registers do not limit the
// occupancy of the float4 one.
template <int FILTER_RADIUS, bool VECTOR_IO>
__global__ void __launch_bounds__(THREADS)
    convolution_2D_register_tiled_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height) {
  constexpr int FILTER_DIM = 2 * FILTER_RADIUS + 1;
  constexpr int HALO = PAD<FILTER_RADIUS>;
  constexpr int IN_TILE_W = OUT_TILE_W + 2 * HALO;  // a multiple of 4: rows stay 16-byte aligned
  constexpr int IN_TILE_H = OUT_TILE_H + 2 * FILTER_RADIUS;
  constexpr int WINDOW = COARSE_X + 2 * HALO;       // pixels of one input row a thread reads
  __shared__ __align__(16) float N_s[IN_TILE_H][IN_TILE_W];

  const int tileCol0 = blockIdx.x * OUT_TILE_W;  // first output column of this block's tiles
  const int firstRow = blockIdx.y * (TILES_PER_BLOCK * OUT_TILE_H);
  const int tid = threadIdx.y * BLOCK_X + threadIdx.x;
  const int outX = threadIdx.x * COARSE_X;       // this thread's outputs within a tile
  const int outY = threadIdx.y * COARSE_Y;

  //! [tile_loop]
  InputTileLoad<std::conditional_t<VECTOR_IO, float4, float>, FILTER_RADIUS, IN_TILE_W> next;
  next.fetch(N, width, height, firstRow, tileCol0 - HALO, tid);
  for (int t = 0; t < TILES_PER_BLOCK; ++t) {
    const int tileRow0 = firstRow + t * OUT_TILE_H;
    if (tileRow0 >= height) break;  // the same for the whole block, so no thread misses a barrier
    __syncthreads();                // every thread is done reading the previous tile from N_s
    next.store(N_s, tid);
    __syncthreads();                // the tile is in place
    if (t + 1 < TILES_PER_BLOCK && tileRow0 + OUT_TILE_H < height)  // in flight during the computation
      next.fetch(N, width, height, tileRow0 + OUT_TILE_H, tileCol0 - HALO, tid);

    // Input row i of this thread's column (shared row outY + i) is needed by output row o = i - fRow
    // for each filter row fRow: read the row once, use it for all of them. Everything below is
    // unrolled, so acc and w live in registers and the `o` test disappears at compile time.
    float acc[COARSE_Y][COARSE_X] = {};
#pragma unroll
    for (int i = 0; i < COARSE_Y + 2 * FILTER_RADIUS; ++i) {
      float w[WINDOW];
      const float4* src = reinterpret_cast<const float4*>(&N_s[outY + i][outX]);
#pragma unroll
      for (int q = 0; q < WINDOW / 4; ++q) {
        const float4 v = src[q];
        w[4 * q] = v.x, w[4 * q + 1] = v.y, w[4 * q + 2] = v.z, w[4 * q + 3] = v.w;
      }
#pragma unroll
      for (int fRow = 0; fRow < FILTER_DIM; ++fRow) {
        const int o = i - fRow;
        if (o < 0 || o >= COARSE_Y) continue;
#pragma unroll
        for (int fCol = 0; fCol < FILTER_DIM; ++fCol) {
          const float f = F_c[fRow * FILTER_DIM + fCol];
          // Output column outX + c reads shared column outX + c - r + fCol + HALO = outX + (w's index).
#pragma unroll
          for (int c = 0; c < COARSE_X; ++c) acc[o][c] += f * w[c + HALO - FILTER_RADIUS + fCol];
        }
      }
    }

    // Storing: one float4 per output row when rows are aligned, else one float at a time.
    const int col = tileCol0 + outX;
#pragma unroll
    for (int o = 0; o < COARSE_Y; ++o) {
      const int row = tileRow0 + outY + o;
      if (row >= height) break;
      float* dst = P + static_cast<long long>(row) * width + col;
      if constexpr (VECTOR_IO) {
        if (col < width) *reinterpret_cast<float4*>(dst) = make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
      } else {
#pragma unroll
        for (int c = 0; c < COARSE_X; ++c)
          if (col + c < width) dst[c] = acc[o][c];
      }
    }
  }
  //! [tile_loop]
}

// ---- Launcher -----------------------------------------------------------------------------------

void convolution_2D_register_tiled_upload_filter(const float* host_filter, int radius) {
  upload_filter_to_constant_memory(host_filter, radius);
}

LaunchConfig convolution_2D_register_tiled(const Conv2dArgs& a) {
  // Each thread owns 4 x COARSE_Y outputs of a tile, so a block covers one OUT_TILE_W x OUT_TILE_H
  // tile at a time; it computes TILES_PER_BLOCK of them, one below the other, so that it has a next
  // tile to prefetch. The grid covers the width in tiles and the height in columns of tiles.
  const dim3 block(BLOCK_X, BLOCK_Y);
  const dim3 grid(ceil_div<unsigned>(a.width, OUT_TILE_W), ceil_div<unsigned>(a.height, OUT_TILE_H * TILES_PER_BLOCK));
  // float4 accesses need every row to start on a 16-byte boundary.
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vector_io = a.width % 4 == 0 && aligned(a.in) && aligned(a.out);
  std::size_t shared_bytes = 0;
  with_filter_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    shared_bytes = sizeof(float) * (OUT_TILE_W + 2 * PAD<R>) * (OUT_TILE_H + 2 * R);
    if (vector_io)
      convolution_2D_register_tiled_kernel<R, true><<<grid, block>>>(a.in, a.out, a.width, a.height);
    else
      convolution_2D_register_tiled_kernel<R, false><<<grid, block>>>(a.in, a.out, a.width, a.height);
  });
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared_bytes};
}

}  // namespace pmpp::ch07
