// =================================================================================================
// Stage 08: 3xTF32 on Hopper's warpgroup MMA (beyond the text)
//
// What it is:  stage 07's three products, issued as wgmma.mma_async by two warpgroups: each multiplies
//              64 rows of a 128 x 128 tile of C, its operands read by the tensor cores straight from
//              shared memory. A pre-pass splits A and B once into big and small TF32 parts in a workspace
//              (B transposed: TF32 wgmma reads both operands K-major), zero-padded to whole tiles; the main
//              kernel then only copies (cp.async, into 3 buffers of K slices of 32, 128-byte swizzled)
//              and multiplies.
// Changed:     no fragment loads, no split in the inner loop, and the warps do not wait for the tensor
//              cores: stage 07 spends most of its instructions feeding mma.sync, this stage almost none.
// Limitation:  Hopper only (sm_90a: wgmma is an architecture-specific instruction); the pre-pass reads A
//              and B and writes twice their size (at 4096^3 on an H100 about a tenth of the time); the
//              workspace takes 2 (M + N) K floats, rounded up to whole tiles.
// Preconditions: 1 <= M, N, K <= MAX_DIM, any sizes and alignments; compute capability 9.0 and code
//              compiled for sm_90a (wgmma_3xtf32_unavailable says otherwise, and the programs skip the
//              stage); 193 KB of shared memory per block; the workspace must fit in device memory.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch05_matmul/async_copy.cuh"
#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/operand_prepass.cuh"
#include "ch05_matmul/tf32_mma.cuh"
#include "ch05_matmul/wgmma.cuh"
#include "pmpp/wgmma_available.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

namespace {

using W = WgmmaTiling;
constexpr int ROW_BYTES = W::TILE_K * 4;                             // one swizzled row: 32 floats of K
static_assert(ROW_BYTES == 128, "the 128-byte swizzle holds 32 floats of K per row");
constexpr int A_BYTES = W::TILE_M * ROW_BYTES, B_BYTES = W::TILE_N * ROW_BYTES;  // one part of one slice
constexpr int SLICE_BYTES = 2 * (A_BYTES + B_BYTES);                 // big and small parts of A and B
constexpr int ALIGNMENT = 1024;                                      // the swizzle repeats every 8 rows
constexpr std::size_t SHARED_BYTES = std::size_t{W::STAGES} * SLICE_BYTES + ALIGNMENT;

/// The padded sizes of the split operands: whole tiles in M and N, whole slices in K.
struct Padded {
  std::int64_t M, N, K;
  explicit Padded(const MatmulArgs& a)
      : M(ceil_div(a.M, W::TILE_M) * std::int64_t{W::TILE_M}),
        N(ceil_div(a.N, W::TILE_N) * std::int64_t{W::TILE_N}),
        K(ceil_div(a.K, W::TILE_K) * std::int64_t{W::TILE_K}) {}
};

// ---- Pre-pass: split once ------------------------------------------------------------------------

/// Writes x split as stage 07 splits it (tf32_mma.cuh) into the big and small parts' copies.
struct SplitStore {
  float* big;
  float* small;
  __device__ void operator()(std::int64_t at, float x) const {
    const Tf32Pair p = split_tf32(x);
    big[at] = __uint_as_float(p.big);
    small[at] = __uint_as_float(p.small);
  }
};

// ---- Main kernel ---------------------------------------------------------------------------------

//! [kernel]
/// C = A B from the split operands: A's parts are Mp x Kp, B's parts Np x Kp (B transposed), row-major.
/// Block (x, y) computes the 128 x 128 tile of C at row 128y, column 128x; warpgroup w its rows 64w..64w+63.
__global__ void __launch_bounds__(W::THREADS, 1)
    WgmmaMatrixMulKernel(const float* __restrict__ a_big, const float* __restrict__ a_small,
                         const float* __restrict__ b_big, const float* __restrict__ b_small, float* __restrict__ C,
                         int M, int N, std::int64_t Kp, bool pairs) {
#ifdef PMPP_HAVE_WGMMA
  extern __shared__ std::uint8_t shared_raw[];
  // The swizzle is a function of the shared-memory address: slices must start on a 1024-byte boundary.
  std::uint8_t* const shared = shared_raw + (-__cvta_generic_to_shared(shared_raw) & (ALIGNMENT - 1));
  const int tid = threadIdx.x, warpgroup = tid / 128;
  const std::int64_t row0 = std::int64_t{blockIdx.y} * W::TILE_M, col0 = std::int64_t{blockIdx.x} * W::TILE_N;
  const int slices = static_cast<int>(Kp / W::TILE_K);

  // Slice s's layout: A big | A small | B big | B small, each a swizzled tile of 128 rows of 32 floats.
  // Thread c copies 16-byte chunk c % 8 of row c / 8 of each, and 256 threads further, 4 times per part.
  auto copy_slice = [&](int s, int buffer) {
    std::uint8_t* const slice = shared + buffer * SLICE_BYTES;
    const float* const parts[4] = {a_big, a_small, b_big, b_small};
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const float* const first = parts[p] + (p < 2 ? row0 : col0) * Kp + std::int64_t{s} * W::TILE_K;
#pragma unroll
      for (int i = 0; i < W::TILE_M * 8 / W::THREADS; ++i) {
        const int c = i * W::THREADS + tid, row = c / 8, chunk = c % 8;
        copy_async<16>(slice + p * A_BYTES + swizzled_offset(row, chunk), first + row * Kp + 4 * chunk, true);
      }
    }
  };

  float acc[64] = {};  // this thread's part of the warpgroup's 64 x 128 tile (wgmma.cuh: the layout)
  float step[64];      // one slice's three products, added to acc with float adds

  // STAGES - 1 slices in flight before the first product, then one more per slice multiplied.
#pragma unroll
  for (int s = 0; s < W::STAGES - 1; ++s) {
    if (s < slices) copy_slice(s, s);
    copy_async_commit();
  }
  for (int s = 0; s < slices; ++s) {
    copy_async_wait<W::STAGES - 2>();  // slice s has landed (this thread's part of it)
    fence_for_async_proxy();           // ... and is visible to the tensor cores
    __syncthreads();                   // every thread's part; and every warpgroup is done with slice s - 1
    const int next = s + W::STAGES - 1;
    if (next < slices) copy_slice(next, next % W::STAGES);  // into the buffer slice s - 1 used
    copy_async_commit();

    const std::uint32_t slice = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared)) +
                                (s % W::STAGES) * SLICE_BYTES;
    const std::uint32_t a_b = slice + warpgroup * 64 * ROW_BYTES, a_s = a_b + A_BYTES;
    const std::uint32_t b_b = slice + 2 * A_BYTES, b_s = b_b + B_BYTES;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < W::TILE_K / 8; ++kk) {  // k-steps of 8 floats: 32 bytes further into each row
      const int k = 32 * kk;
      // The small products first, while the sum is small; the first one starts the sum (accumulate 0).
      wgmma_m64n128k8_tf32(step, swizzled_tile_descriptor(a_s + k), swizzled_tile_descriptor(b_b + k), kk > 0);
      wgmma_m64n128k8_tf32(step, swizzled_tile_descriptor(a_b + k), swizzled_tile_descriptor(b_s + k), 1);
      wgmma_m64n128k8_tf32(step, swizzled_tile_descriptor(a_b + k), swizzled_tile_descriptor(b_b + k), 1);
    }
    wgmma_commit();
    wgmma_wait<0>();
    wgmma_operand_fence(step);
    // The tensor cores round their sums toward zero; a float add per slice rounds to nearest (stage 07).
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] += step[i];
  }

  store_warpgroup_tile(acc, C, M, N, row0 + warpgroup * 64, col0, pairs);
#endif
}
//! [kernel]

// ---- Launcher ------------------------------------------------------------------------------------

}  // namespace

std::size_t wgmma_3xtf32_workspace_bytes(int M, int N, int K) {
  const Padded p(MatmulArgs{nullptr, nullptr, nullptr, M, N, K, 0});
  return sizeof(float) * static_cast<std::size_t>(2 * (p.M + p.N) * p.K);
}

std::string wgmma_3xtf32_unavailable() { return wgmma_unavailable_here(); }

LaunchConfig matmul_wgmma_3xtf32(const MatmulArgs& a) {
  require_valid(a, "matmul_wgmma_3xtf32");
  require_wgmma_launch("matmul_wgmma_3xtf32", SHARED_BYTES);
  const Padded p(a);
  float* const work =
      prepass_workspace(wgmma_3xtf32_workspace_bytes(a.M, a.N, a.K) / sizeof(float), "matmul_wgmma_3xtf32");
  float* const a_big = work;
  float* const a_small = a_big + p.M * p.K;
  float* const b_big = a_small + p.M * p.K;
  float* const b_small = b_big + p.N * p.K;

  const int split_blocks = 8 * current_device_attribute(cudaDevAttrMultiProcessorCount);
  RowsPrepassKernel<<<split_blocks, 256>>>(a.A, a.M, a.K, p.M, p.K, SplitStore{a_big, a_small});
  CUDA_CHECK_LAUNCH();
  TransposePrepassKernel<<<transpose_grid(p.N, p.K), TRANSPOSE_THREADS>>>(a.B, a.K, a.N, p.N, p.K,
                                                                           SplitStore{b_big, b_small});
  CUDA_CHECK_LAUNCH();

  CUDA_CHECK(cudaFuncSetAttribute(WgmmaMatrixMulKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(SHARED_BYTES)));
  // Pairs of outputs are stored as float2 where every row of C starts 8-byte aligned.
  const bool pairs = a.N % 2 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % 8 == 0;
  const dim3 grid(static_cast<unsigned>(p.N / W::TILE_N), static_cast<unsigned>(p.M / W::TILE_M));
  WgmmaMatrixMulKernel<<<grid, W::THREADS, SHARED_BYTES>>>(a_big, a_small, b_big, b_small, a.C, a.M, a.N, p.K, pairs);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {W::THREADS, 1, 1}, SHARED_BYTES};
}

}  // namespace pmpp::ch05
