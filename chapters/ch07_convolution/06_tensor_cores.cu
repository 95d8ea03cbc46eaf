// =================================================================================================
// Stage 06: convolution on tensor cores, 3xTF32 (beyond the text)
//
// What it is:  8 adjacent outputs of a row read 8 + 2r adjacent inputs of each of 2r + 1 input rows,
//              so a 16 x 8 block of outputs is a sum over filter rows i of (16 x (8 + 2r) input block,
//              starting i rows down) x T_i, where T_i is filter row i as a Toeplitz matrix. Each product
//              is mma.sync m16n8k8 instructions on TF32 operands, three per step (big x big, big x
//              small, small x big: each float split into two TF32 parts) so the sum is as accurate as
//              FP32 FMAs. A block stages a 64 x 64 output tile's input, already split, in shared memory.
// Changed:     stage 05 does (2r+1)^2 FP32 FMAs per output; this stage hands the multiply-adds to the
//              tensor cores, about 7 times the FP32 rate on an H100, and pays for it in zeros: of the
//              8 k-steps' worth of columns, 2r + 1 meet a tap, and two of the three products only
//              correct rounding.
// Limitation:  the zeros (tensor_core_useful_share) and mma.sync's issue rate; the staging is not
//              overlapped with the products inside a block (other blocks on the SM fill the gaps).
// Preconditions: compute capability 8.0 (skipped below, or where this build's code for the GPU is
//              older); TENSOR_MIN_RADIUS <= radius <= MAX_FILTER_RADIUS (skipped below); width,
//              height >= 1; finite inputs (a zero of T_i times an infinite neighbour is NaN); the
//              filter uploaded with convolution_2D_tensor_cores_upload_filter before the launch.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "ch07_convolution/to_tf32.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

// ---- Constants ----------------------------------------------------------------------------------

constexpr int WARPS_X = TENSOR_WARPS_X, WARPS_Y = TENSOR_WARPS_Y;
constexpr int TILES_M = TENSOR_TILES_M, TILES_N = TENSOR_TILES_N;  // 16 x 8 output blocks per warp
constexpr int THREADS = 32 * WARPS_X * WARPS_Y;
constexpr int OUT_TILE_W = WARPS_X * TILES_N * MMA_N;  // 64 columns
constexpr int OUT_TILE_H = WARPS_Y * TILES_M * MMA_M;  // 64 rows
constexpr int GROUP = MMA_K;                           // input columns per staged group: one k-step

/// The shared-memory layout for one radius. The input tile is OUT_TILE_H + 2r rows of GROUPS groups of
/// 8 columns (the output tile's columns and the k-steps' reach past them). A group is 4 float4s: the
/// float4 for t in 0..3 holds {big(t), big(t + 4), small(t), small(t + 4)}, exactly what one lane's A
/// fragment needs from one row, so a fragment is two 16-byte loads.
template <int R>
struct TensorGeometry {
  static constexpr int STEPS = tensor_k_steps(R);
  static constexpr int IN_ROWS = OUT_TILE_H + 2 * R;
  static constexpr int GROUPS = OUT_TILE_W / GROUP + STEPS - 1;
  // An odd row stride in groups puts rows g and g + 1 of a fragment load 64 bytes apart modulo 128:
  // the 8 lanes of each quarter-warp then read all 32 banks once.
  static constexpr int ROW_GROUPS = GROUPS | 1;
  static constexpr int TILE_UNITS = IN_ROWS * ROW_GROUPS * 4;          // float4s
  static constexpr int TABLE_UNITS = (2 * R + 1) * STEPS * 32;         // one float4 per lane and step
  static constexpr std::size_t SHARED_BYTES = sizeof(float4) * (TILE_UNITS + TABLE_UNITS);
};

// The filter's Toeplitz fragments (toeplitz_fragments), uploaded once per filter. Global memory, not
// constant: every lane reads a different float4, which the constant cache would serialize.
__device__ float4 toeplitz_table[filter_dim(MAX_FILTER_RADIUS) * tensor_k_steps(MAX_FILTER_RADIUS) * 32];

// ---- Kernel -------------------------------------------------------------------------------------

/// d += a x b on the tensor cores: a is a 16 x 8 A fragment, b an 8 x 8 B fragment, d 16 x 8 (FP32).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
#if __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

//! [kernel]
template <int FILTER_RADIUS>
__global__ void __launch_bounds__(THREADS)
    convolution_2D_tensor_cores_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height,
                                       bool pairs) {
#if __CUDA_ARCH__ >= 800  // the launcher refuses older code (tensor_cores_skip_reason)
  using Geo = TensorGeometry<FILTER_RADIUS>;
  constexpr int STEPS = Geo::STEPS, IN_COLS = Geo::GROUPS * GROUP, ROW_GROUPS = Geo::ROW_GROUPS;
  extern __shared__ float4 smem[];
  float4* table = smem;                     // B fragments: [(i * STEPS + s) * 32 + lane]
  float4* tile = smem + Geo::TABLE_UNITS;   // A fragments: [(row * ROW_GROUPS + group) * 4 + t]
  const int tid = threadIdx.x;

  // Staging: the filter's fragments as uploaded; the input tile split into TF32 parts once, so the
  // loop below only loads and multiplies. Tile row 0, column 0 is image pixel (row0, col0); ghost
  // cells are zeros. Consecutive threads read consecutive columns.
  for (int u = tid; u < Geo::TABLE_UNITS; u += THREADS) table[u] = toeplitz_table[u];
  const int row0 = static_cast<int>(blockIdx.y) * OUT_TILE_H - FILTER_RADIUS;
  const int col0 = static_cast<int>(blockIdx.x) * OUT_TILE_W - FILTER_RADIUS;
  constexpr int ELEMS = Geo::IN_ROWS * IN_COLS, CHUNK = 8;  // CHUNK loads in flight per thread
  float* tile_f = reinterpret_cast<float*>(tile);
  for (int base = 0; base < ELEMS; base += CHUNK * THREADS) {
    float v[CHUNK];
#pragma unroll
    for (int c = 0; c < CHUNK; ++c) {
      const int e = base + c * THREADS + tid, y = row0 + e / IN_COLS, x = col0 + e % IN_COLS;
      const bool inside = e < ELEMS && static_cast<unsigned>(y) < static_cast<unsigned>(height) &&
                          static_cast<unsigned>(x) < static_cast<unsigned>(width);
      v[c] = inside ? __ldg(N + static_cast<long long>(y) * width + x) : 0.0f;
    }
#pragma unroll
    for (int c = 0; c < CHUNK; ++c) {
      const int e = base + c * THREADS + tid, row = e / IN_COLS, col = e % IN_COLS;
      if (e >= ELEMS) break;
      float* unit = tile_f + ((row * ROW_GROUPS + col / GROUP) * 4 + col % 4) * 4;
      const int half = col % GROUP / 4;  // column t or t + 4 of the group
      const float big = to_tf32(v[c]);
      unit[half] = big;
      unit[2 + half] = to_tf32(v[c] - big);
    }
  }
  __syncthreads();  // the tile and the table are in place

  // This warp's outputs: TILES_M x TILES_N blocks of 16 x 8, rows from wrow, 8-column groups from wgroup.
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int wrow = warp / WARPS_X * TILES_M * MMA_M, wgroup = warp % WARPS_X * TILES_N;
  float acc[TILES_M][TILES_N][4] = {};
#pragma unroll 1
  for (int i = 0; i < 2 * FILTER_RADIUS + 1; ++i) {
    std::uint32_t b[STEPS][4];  // T_i's fragments, {big, big, small, small}, for every k-step
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
      const float4 f = table[(i * STEPS + s) * 32 + lane];
      b[s][0] = __float_as_uint(f.x), b[s][1] = __float_as_uint(f.y);
      b[s][2] = __float_as_uint(f.z), b[s][3] = __float_as_uint(f.w);
    }
#pragma unroll
    for (int m = 0; m < TILES_M; ++m) {
      // Output row wrow + 16m + g meets filter row i in tile row wrow + 16m + g + i (a0, a2); +8: a1, a3.
      const float4* top = tile + ((wrow + m * MMA_M + g + i) * ROW_GROUPS + wgroup) * 4 + t;
      const float4* bottom = top + 8 * ROW_GROUPS * 4;
      // Group c of the warp's columns is k-step s = c - n of output block n: load it once for all n.
#pragma unroll
      for (int c = 0; c < TILES_N + STEPS - 1; ++c) {
        const float4 u = top[c * 4], w = bottom[c * 4];
        const std::uint32_t a_big[4] = {__float_as_uint(u.x), __float_as_uint(w.x), __float_as_uint(u.y),
                                        __float_as_uint(w.y)};
        const std::uint32_t a_small[4] = {__float_as_uint(u.z), __float_as_uint(w.z), __float_as_uint(u.w),
                                          __float_as_uint(w.w)};
#pragma unroll
        for (int n = 0; n < TILES_N; ++n) {
          const int s = c - n;
          if (s < 0 || s >= STEPS) continue;
          // The small corrections first, the big product last: the same sum, less rounding.
          mma_tf32(acc[m][n], a_small, b[s][0], b[s][1]);
          mma_tf32(acc[m][n], a_big, b[s][2], b[s][3]);
          mma_tf32(acc[m][n], a_big, b[s][0], b[s][1]);
        }
      }
    }
  }

  // Output fragment: c0, c1 at row g, columns 2t and 2t + 1; c2, c3 eight rows down.
#pragma unroll
  for (int m = 0; m < TILES_M; ++m)
#pragma unroll
    for (int n = 0; n < TILES_N; ++n)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int y = static_cast<int>(blockIdx.y) * OUT_TILE_H + wrow + m * MMA_M + g + 8 * h;
        const int x = static_cast<int>(blockIdx.x) * OUT_TILE_W + (wgroup + n) * MMA_N + 2 * t;
        if (y >= height || x >= width) continue;
        float* dst = P + static_cast<long long>(y) * width + x;
        if (pairs && x + 1 < width) {
          *reinterpret_cast<float2*>(dst) = make_float2(acc[m][n][2 * h], acc[m][n][2 * h + 1]);
        } else {
          dst[0] = acc[m][n][2 * h];
          if (x + 1 < width) dst[1] = acc[m][n][2 * h + 1];
        }
      }
#endif
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

std::string tensor_cores_skip_reason(const Conv2dArgs& a) {
  if (const std::string why = tensor_radius_skip_reason(a.radius); !why.empty()) return why;
  // What matters is the code this GPU runs: a compute_75 build JIT-compiled on an H100 has no mma.
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, convolution_2D_tensor_cores_kernel<TENSOR_MIN_RADIUS>));
  if (attributes.ptxVersion < 80)
    return "needs compute capability 8.0 (TF32 mma.sync); this GPU runs this build's compute_" +
           std::to_string(attributes.ptxVersion) + " code";
  return "";
}

void convolution_2D_tensor_cores_upload_filter(const float* host_filter, int radius) {
  check_filter_radius(radius);
  const int taps = filter_dim(radius) * filter_dim(radius);
  const std::vector<float> table = toeplitz_fragments(std::vector<float>(host_filter, host_filter + taps), radius);
  CUDA_CHECK(cudaMemcpyToSymbol(toeplitz_table, table.data(), sizeof(float) * table.size(), 0, cudaMemcpyHostToDevice));
}

namespace {
template <int R>
LaunchConfig launch_tensor_cores(const Conv2dArgs& a) {
  using Geo = TensorGeometry<R>;
  static bool opted_in = false;  // once per radius: more than the default 48 KB of shared memory
  if (!opted_in) {
    if (static_cast<std::size_t>(current_shared_per_block_optin()) < Geo::SHARED_BYTES)
      throw std::runtime_error("stage 06 needs " + std::to_string(Geo::SHARED_BYTES) +
                               " bytes of shared memory per block; this GPU allows " +
                               std::to_string(current_shared_per_block_optin()));
    CUDA_CHECK(cudaFuncSetAttribute(convolution_2D_tensor_cores_kernel<R>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(Geo::SHARED_BYTES)));
    opted_in = true;
  }
  // One block per 64 x 64 output tile (4 warps of 32 x 32); CUDA allows 65535 blocks along y.
  const dim3 block(THREADS);
  const dim3 grid(ceil_div<unsigned>(a.width, OUT_TILE_W), ceil_div<unsigned>(a.height, OUT_TILE_H));
  // Pairs of outputs are stored as float2 where every row starts 8-byte aligned.
  const bool pairs = a.width % 2 == 0 && reinterpret_cast<std::uintptr_t>(a.out) % 8 == 0;
  convolution_2D_tensor_cores_kernel<R><<<grid, block, Geo::SHARED_BYTES>>>(a.in, a.out, a.width, a.height, pairs);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, Geo::SHARED_BYTES};
}
}  // namespace

LaunchConfig convolution_2D_tensor_cores(const Conv2dArgs& a) {
  check_filter_radius(a.radius);
  require_tensor_radius("stage 06", a.radius);
  if (const std::string why = tensor_cores_skip_reason(a); !why.empty()) throw std::runtime_error(why);
  LaunchConfig config;
  with_filter_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R >= TENSOR_MIN_RADIUS) config = launch_tensor_cores<R>(a);
  });
  return config;
}

}  // namespace pmpp::ch07
