/// @file tensor_core_gemm.cuh
/// @brief The kernel of stages 06 and 07: stage 05's pipeline of cp.async slices feeding warps that
/// multiply with tensor cores instead of FFMA. PRODUCTS = 1 rounds each operand to TF32 and makes one
/// product (stage 06); PRODUCTS = 3 splits each operand into a big and a small TF32 part and makes the
/// three products that matter (stage 07). Everything else is one body.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch05_matmul/async_copy.cuh"
#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/tf32_mma.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

/// The sizes a tensor-core tiling (Tf32Tiling, Split3Tiling in matmul.hpp) implies.
template <class Shape>
struct MmaGeometry {
  static constexpr int TILE_M = Shape::TILE_M, TILE_N = Shape::TILE_N, TILE_K = Shape::TILE_K;
  static constexpr int WARP_M = Shape::WARP_M, WARP_N = Shape::WARP_N, THREADS = Shape::THREADS;
  static constexpr int WARPS_N = TILE_N / WARP_N;
  static constexpr int M_TILES = WARP_M / 16, N_TILES = WARP_N / 8;  // m16n8k8 tiles per warp tile
  static constexpr int K_STEPS = TILE_K / 8;                         // mma steps per slice
  // Padded rows: a warp's fragment loads touch 8 rows x 4 columns of A (row stride LDA) and 4 rows x 8
  // columns of B (LDB). LDA % 32 = 4 or 20 and LDB % 32 = 8 put those 32 floats in 32 different banks.
  static constexpr int LDA = TILE_K + 4, LDB = TILE_N + 8;
  static constexpr int A_FLOATS = TILE_M * LDA, B_FLOATS = TILE_K * LDB;  // one buffer of each

  static_assert(THREADS == 32 * (TILE_M / WARP_M) * WARPS_N, "one warp per warp tile");
  static_assert(WARP_M % 16 == 0 && WARP_N % 8 == 0 && TILE_K % 8 == 0, "whole m16n8k8 tiles");
  static_assert(LDA % 32 == 4 || LDA % 32 == 20, "A fragment rows 8 apart in banks, 4 floats each");
  static_assert(LDB % 32 == 8, "B fragment rows 8 banks apart");
};

/// Bytes of shared memory for @p stages buffers of each slice.
template <class Shape>
constexpr std::size_t mma_shared_bytes(int stages) {
  return sizeof(float) * static_cast<std::size_t>(stages) * (MmaGeometry<Shape>::A_FLOATS + MmaGeometry<Shape>::B_FLOATS);
}

//! [fragments]
/// One mma step's operands for a warp tile, as loaded from shared memory (floats, not yet rounded).
template <class G>
struct RawFragments {
  float a[G::M_TILES][4];
  float b[G::N_TILES][2];
};

/// Load the fragments of k-step @p kk (k = 8 kk .. 8 kk + 7 of the slice) for the warp tile whose corner
/// in the block tile is (warpRow, warpCol); g, t as in tf32_mma.cuh.
template <class G>
__device__ __forceinline__ RawFragments<G> load_fragments(const float* as, const float* bs, int warpRow, int warpCol,
                                                          int g, int t, int kk) {
  RawFragments<G> f;
  const int k = 8 * kk + t;
#pragma unroll
  for (int i = 0; i < G::M_TILES; ++i) {
    const float* row = as + (warpRow + 16 * i + g) * G::LDA + k;
    f.a[i][0] = row[0];
    f.a[i][1] = row[8 * G::LDA];
    f.a[i][2] = row[4];
    f.a[i][3] = row[8 * G::LDA + 4];
  }
#pragma unroll
  for (int j = 0; j < G::N_TILES; ++j) {
    const float* col = bs + k * G::LDB + warpCol + 8 * j + g;
    f.b[j][0] = col[0];
    f.b[j][1] = col[4 * G::LDB];
  }
  return f;
}
//! [fragments]

//! [products]
/// acc += the warp tile's product for one k-step. PRODUCTS = 1: each operand rounded to TF32, one mma per
/// tile, accumulated in place. PRODUCTS = 3: each operand split once (big + small), then per tile the two
/// small products and the big one into a zeroed partial sum, which one float add moves into acc: the
/// tensor core rounds its sums toward zero (a bias that would grow with K), the add rounds to nearest.
template <class G, int PRODUCTS>
__device__ __forceinline__ void multiply_step(const RawFragments<G>& f, float (&acc)[G::M_TILES][G::N_TILES][4]) {
  static_assert(PRODUCTS == 1 || PRODUCTS == 3, "one TF32 product, or three (big and small parts)");
  constexpr int PARTS = PRODUCTS == 1 ? 1 : 2;  // part 0: big (x rounded to TF32); part 1: small
  std::uint32_t a[PARTS][G::M_TILES][4], b[PARTS][G::N_TILES][2];
#pragma unroll
  for (int i = 0; i < G::M_TILES; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      if constexpr (PARTS == 1) {
        a[0][i][r] = to_tf32(f.a[i][r]);
      } else {
        const Tf32Pair p = split_tf32(f.a[i][r]);
        a[0][i][r] = p.big, a[PARTS - 1][i][r] = p.small;
      }
    }
#pragma unroll
  for (int j = 0; j < G::N_TILES; ++j)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if constexpr (PARTS == 1) {
        b[0][j][r] = to_tf32(f.b[j][r]);
      } else {
        const Tf32Pair p = split_tf32(f.b[j][r]);
        b[0][j][r] = p.big, b[PARTS - 1][j][r] = p.small;
      }
    }
#pragma unroll
  for (int i = 0; i < G::M_TILES; ++i)
#pragma unroll
    for (int jj = 0; jj < G::N_TILES; ++jj) {
      const int j = i % 2 == 0 ? jj : G::N_TILES - 1 - jj;  // snake order: consecutive mmas share b
      if constexpr (PARTS == 1) {
        mma_tf32(acc[i][j], a[0][i], b[0][j]);
      } else {
        constexpr int BIG = 0, SMALL = PARTS - 1;
        float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        mma_tf32(part, a[BIG][i], b[SMALL][j]);  // the small products first, while the sum is small
        mma_tf32(part, a[SMALL][i], b[BIG][j]);
        mma_tf32(part, a[BIG][i], b[BIG][j]);
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] += part[r];
      }
    }
}
//! [products]

template <class Shape, int PRODUCTS, int STAGES, bool VECTOR_IO>
__global__ void __launch_bounds__(Shape::THREADS, 1)
    TensorCoreMatrixMulKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                              int N, int K) {
  using G = MmaGeometry<Shape>;
  constexpr int TILE_M = G::TILE_M, TILE_N = G::TILE_N, TILE_K = G::TILE_K, THREADS = G::THREADS;
  static_assert(STAGES >= 2, "a slice lands in one buffer while another is read");
  extern __shared__ __align__(16) float shared[];
  float* const As = shared;                       // STAGES buffers of TILE_M x LDA
  float* const Bs = shared + STAGES * G::A_FLOATS;  // STAGES buffers of TILE_K x LDB

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  const int blockRow = blockIdx.y * TILE_M, blockCol = blockIdx.x * TILE_N;
  const int warpRow = (warp / G::WARPS_N) * G::WARP_M, warpCol = (warp % G::WARPS_N) * G::WARP_N;

  // The copies are stage 05's: each thread copies one column of fixed rows of every slice, rows past M
  // repeat the last row, columns past N the last chunk, and a short first slice is zero-filled before
  // k = 0, so the loop's copies test nothing.
  constexpr int VEC = VECTOR_IO ? 4 : 1;  // floats per copy
  constexpr int A_CHUNKS = TILE_K / VEC, A_ROW_STEP = THREADS / A_CHUNKS, A_COPIES = TILE_M / A_ROW_STEP;
  constexpr int B_CHUNKS = TILE_N / VEC, B_ROW_STEP = THREADS / B_CHUNKS, B_COPIES = TILE_K / B_ROW_STEP;
  static_assert(THREADS % A_CHUNKS == 0 && THREADS % B_CHUNKS == 0 && A_COPIES * A_ROW_STEP == TILE_M &&
                    B_COPIES * B_ROW_STEP == TILE_K,
                "the threads' copies cover each slice");
  const int aCol = tid % A_CHUNKS * VEC, aRow0 = tid / A_CHUNKS;
  const int bCol = tid % B_CHUNKS * VEC, bRow0 = tid / B_CHUNKS;
  const int aRowsInside = min(A_COPIES, ceil_div(max(M - blockRow - aRow0, 1), A_ROW_STEP));
  const float* const aFirst = A + static_cast<std::int64_t>(min(blockRow + aRow0, M - 1)) * K + aCol;
  const float* const bFirst = B + static_cast<std::int64_t>(bRow0) * N + min(blockCol + bCol, N - VEC);
  const std::int64_t aStride = static_cast<std::int64_t>(A_ROW_STEP) * K;
  const std::int64_t bStride = static_cast<std::int64_t>(B_ROW_STEP) * N;

  // Copy the slice that starts at k0 into buffer `stage`. A copy of a k before 0 (only in the first
  // slice) writes zeros and reads nothing.
  auto copySlice = [&](int k0, int stage) {
    float* const as = As + stage * G::A_FLOATS;
    float* const bs = Bs + stage * G::B_FLOATS;
    const float* a = aFirst;
#pragma unroll
    for (int l = 0; l < A_COPIES; ++l) {
      const bool inside = k0 + aCol >= 0;
      copy_async<4 * VEC>(&as[(aRow0 + l * A_ROW_STEP) * G::LDA + aCol], inside ? a + k0 : A, inside);
      if (l + 1 < aRowsInside) a += aStride;
    }
    const float* b = bFirst + static_cast<std::int64_t>(k0) * N;
#pragma unroll
    for (int l = 0; l < B_COPIES; ++l) {
      const bool inside = k0 + bRow0 + l * B_ROW_STEP >= 0;
      copy_async<4 * VEC>(&bs[(bRow0 + l * B_ROW_STEP) * G::LDB + bCol], inside ? b : B, inside);
      b += bStride;
    }
  };

  float acc[G::M_TILES][G::N_TILES][4] = {};
  //! [slice_loop]
  // As stage 05: slices start at kStart = K - slices * TILE_K, the short one first; STAGES - 1 slices
  // are in flight while one is multiplied.
  const int slices = ceil_div(K, TILE_K), kStart = K - slices * TILE_K;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slices) copySlice(kStart + s * TILE_K, s);
    copy_async_commit();
  }
  for (int s = 0; s < slices; ++s) {
    copy_async_wait<STAGES - 2>();  // this thread's copies of slice s have landed...
    __syncthreads();                // ...and everyone's; and slice s - 1's buffer is free
    const int next = s + STAGES - 1;
    if (next < slices) copySlice(kStart + next * TILE_K, next % STAGES);
    copy_async_commit();
    const float* const as = As + (s % STAGES) * G::A_FLOATS;
    const float* const bs = Bs + (s % STAGES) * G::B_FLOATS;
    // Fragments double-buffered in registers: step kk + 1's are loaded before step kk's mmas.
    RawFragments<G> current = load_fragments<G>(as, bs, warpRow, warpCol, g, t, 0);
#pragma unroll
    for (int kk = 0; kk < G::K_STEPS; ++kk) {
      RawFragments<G> following;
      if (kk + 1 < G::K_STEPS) following = load_fragments<G>(as, bs, warpRow, warpCol, g, t, kk + 1);
      multiply_step<G, PRODUCTS>(current, acc);
      if (kk + 1 < G::K_STEPS) current = following;
    }
  }
  //! [slice_loop]

  // Each lane holds two neighbouring columns of rows g and g + 8 of every tile.
#pragma unroll
  for (int i = 0; i < G::M_TILES; ++i)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = blockRow + warpRow + 16 * i + g + 8 * half;
      if (row >= M) continue;
      float* const cRow = C + static_cast<std::int64_t>(row) * N;
#pragma unroll
      for (int j = 0; j < G::N_TILES; ++j) {
        const int col = blockCol + warpCol + 8 * j + 2 * t;
        const float x = acc[i][j][2 * half], y = acc[i][j][2 * half + 1];
        if constexpr (VECTOR_IO) {  // N % 4 == 0: both columns inside or both outside, 8-byte aligned
          if (col < N) *reinterpret_cast<float2*>(cRow + col) = make_float2(x, y);
        } else {
          if (col < N) cRow[col] = x;
          if (col + 1 < N) cRow[col + 1] = y;
        }
      }
    }
}

// ---- Launcher -----------------------------------------------------------------------------------

/// Empty when the tensor-core kernel with @p Shape and @p PRODUCTS can run on the current GPU; else one
/// line saying why not: the GPU is older than compute capability 8.0, or this build's code for it was
/// compiled for an older architecture (a PTX-only build for 7.5 runs on any GPU, without tensor cores).
template <class Shape, int PRODUCTS>
std::string tensor_core_unavailable() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major < 8)
    return "needs compute capability 8.0 (TF32 tensor cores); this GPU has " + std::to_string(major) + "." +
           std::to_string(minor);
  cudaFuncAttributes code{};
  CUDA_CHECK(cudaFuncGetAttributes(&code, TensorCoreMatrixMulKernel<Shape, PRODUCTS, 2, true>));
  if (code.ptxVersion < 80)
    return "needs compute capability 8.0 (TF32 tensor cores); this build runs code compiled for " +
           std::to_string(code.ptxVersion / 10) + "." + std::to_string(code.ptxVersion % 10) + " on this GPU";
  return "";
}

/// Launch the tensor-core kernel: 4 buffers per slice where a block may have that much shared memory,
/// else 2. Throws std::runtime_error where tensor_core_unavailable() is not empty.
template <class Shape, int PRODUCTS>
LaunchConfig launch_tensor_core(const MatmulArgs& a, const char* launcher) {
  require_valid(a, launcher);
  const std::string why = tensor_core_unavailable<Shape, PRODUCTS>();
  if (!why.empty()) throw std::runtime_error(std::string(launcher) + ": " + why);
  using G = MmaGeometry<Shape>;
  const std::size_t allowed = static_cast<std::size_t>(current_shared_per_block_optin());
  const int stages = allowed >= mma_shared_bytes<Shape>(4) ? 4 : 2;
  const std::size_t shared = mma_shared_bytes<Shape>(stages);
  if (allowed < shared)
    throw std::runtime_error(std::string(launcher) + ": needs " + std::to_string(shared / 1024) +
                             " KB of shared memory per block; this GPU allows " + std::to_string(allowed / 1024) + " KB");
  // One block of THREADS threads per TILE_M x TILE_N tile of C, rounded up; one warp per warp tile.
  const dim3 block(G::THREADS);
  const dim3 grid(ceil_div<unsigned>(a.N, G::TILE_N), ceil_div<unsigned>(a.M, G::TILE_M));
  auto launch = [&](auto kernel) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    kernel<<<grid, block, shared>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  };
  const bool vector = float4_operands(a);
  if (stages == 4) {
    if (vector) launch(TensorCoreMatrixMulKernel<Shape, PRODUCTS, 4, true>);
    else launch(TensorCoreMatrixMulKernel<Shape, PRODUCTS, 4, false>);
  } else {
    if (vector) launch(TensorCoreMatrixMulKernel<Shape, PRODUCTS, 2, true>);
    else launch(TensorCoreMatrixMulKernel<Shape, PRODUCTS, 2, false>);
  }
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared};
}

}  // namespace pmpp::ch05
