// =================================================================================================
// Stage 09: TF32 on Hopper's warpgroup MMA, its slices copied by the TMA (beyond the text)
//
// What it is:  stage 06's arithmetic (one TF32 product per term) on stage 08's wgmma, with a block laid out
//              as cuBLAS's Hopper kernels lay theirs: two warpgroups multiply a 128 x 256 tile of C
//              (wgmma m64n256k8), and a ninth warp copies. One of its threads asks the Tensor Memory
//              Accelerator for each K slice of A and of B, a box of each with one instruction, into 4
//              buffers; mbarriers say when a buffer is full and when both warpgroups are done with it.
//              A pre-pass rounds B to TF32 and transposes it (TF32 wgmma reads both operands K-major);
//              A goes from the caller's memory straight to the tensor cores, which cut it to TF32.
// Changed:     from stage 08: no thread that multiplies ever copies or waits at a block-wide barrier; a
//              warpgroup waits only for the slice it needs, with the previous slice's products still
//              running (wgmma_wait<1>); tiles twice as wide; blocks walk C in groups of 8 tile rows.
// Limitation:  TF32, not FP32: A cut and B rounded to 10 bits of mantissa (TF32_CUT_A_ROUNDING); Hopper
//              only (sm_90a); the pre-pass reads B and writes it again (at 4096^3 on an H100 about
//              0.06 of the stage's 0.40 ms); the workspace takes N x K floats (and M x K more where A is copied),
//              K rounded up to a multiple of 32.
// Preconditions: 1 <= M, N, K <= MAX_DIM, any sizes and alignments (A is copied, rows padded, where
//              K % 32 != 0 or A is not 128-byte aligned); compute capability 9.0 and code compiled for
//              sm_90a (tma_wgmma_tf32_unavailable says otherwise, and the programs skip the stage);
//              193 KB of shared memory per block; the workspace must fit in device memory.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/operand_prepass.cuh"
#include "ch05_matmul/tf32_mma.cuh"
#include "ch05_matmul/wgmma.cuh"
#include "pmpp/wgmma_available.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"
#include "pmpp/tensor_map.hpp"
#include "pmpp/tma.cuh"

namespace pmpp::ch05 {

namespace {

using T = TmaWgmmaTiling;
constexpr int ROW_BYTES = T::TILE_K * 4;  // one swizzled row of a slice: 32 floats of K
static_assert(ROW_BYTES == 128, "the 128-byte swizzle holds 32 floats of K per row");
constexpr int A_BYTES = T::TILE_M * ROW_BYTES, B_BYTES = T::TILE_N * ROW_BYTES;  // one slice of each
constexpr int SLICE_BYTES = A_BYTES + B_BYTES;
constexpr int ALIGNMENT = 1024;  // the swizzle repeats every 8 rows of 128 bytes
constexpr std::size_t SHARED_BYTES = std::size_t{T::STAGES} * SLICE_BYTES + ALIGNMENT;

/// Writes x rounded to TF32 (cvt.rna, as stage 06 rounds) into the pre-pass's copy.
struct RoundStore {
  float* out;
  __device__ void operator()(std::int64_t at, float x) const { out[at] = __uint_as_float(to_tf32(x)); }
};

/// The pre-pass's copies have rows of K padded to whole slices: each row of a box is then one aligned
/// 128-byte line (the TMA itself needs only rows a whole 16 bytes apart).
std::int64_t padded_k(int K) { return ceil_div(std::int64_t{K}, std::int64_t{T::TILE_K}) * T::TILE_K; }

}  // namespace

//! [kernel]
/// C = A B, A (M x K) and B transposed (N x K) read through their tensor maps in boxes of one slice.
/// Block b computes the 128 x 256 tile tile_of_block(b) of C; warpgroup w its rows 64w .. 64w + 63; warp 8
/// copies.
__global__ void __launch_bounds__(T::THREADS, 1)
    TmaWgmmaKernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap bt_map,
                   float* __restrict__ C, int M, int N, int K, bool pairs) {
#ifdef PMPP_HAVE_WGMMA
  extern __shared__ std::uint8_t shared_raw[];
  // The swizzle is a function of the shared-memory address: buffers must start on a 1024-byte boundary.
  std::uint8_t* const shared = shared_raw + (-__cvta_generic_to_shared(shared_raw) & (ALIGNMENT - 1));
  __shared__ std::uint64_t full[T::STAGES];   // buffer b holds its slice (the TMA's bytes have landed)
  __shared__ std::uint64_t empty[T::STAGES];  // both warpgroups are done with buffer b
  const TilePosition tile = tile_of_block(static_cast<int>(blockIdx.x), ceil_div(M, T::TILE_M),
                                          ceil_div(N, T::TILE_N), T::GROUP_ROWS);
  const int row0 = tile.row * T::TILE_M, col0 = tile.col * T::TILE_N;
  const int slices = ceil_div(K, T::TILE_K), tid = threadIdx.x, warpgroup = tid / 128;

  if (tid == 0) {
    for (int b = 0; b < T::STAGES; ++b) {
      tma::barrier_init(&full[b], 1);                       // the copying thread's arrival, and the bytes
      tma::barrier_init(&empty[b], T::CONSUMER_THREADS);  // every multiplying thread's
    }
    tma::barrier_init_fence();
  }
  __syncthreads();  // the barriers are ready; from here on the warps meet only on them

  if (warpgroup == T::CONSUMER_WARPGROUPS) {  // the copy warp
    if (tid == T::CONSUMER_THREADS) {
      for (int s = 0; s < slices; ++s) {
        const int b = s % T::STAGES;
        // Slice s - STAGES used this buffer: wait until both warpgroups have finished with it.
        if (s >= T::STAGES) tma::barrier_wait(&empty[b], (s / T::STAGES - 1) % 2);
        tma::barrier_arrive_expecting(&full[b], SLICE_BYTES);  // zeros past the edges count too
        std::uint8_t* const buffer = shared + b * SLICE_BYTES;
        tma::copy_box(buffer, &a_map, s * T::TILE_K, row0, &full[b]);
        tma::copy_box(buffer + A_BYTES, &bt_map, s * T::TILE_K, col0, &full[b]);
      }
    }
    return;
  }

  float acc[128] = {};  // this thread's part of the warpgroup's 64 x 256 tile (wgmma.cuh: the layout)
  for (int s = 0; s < slices; ++s) {
    const int b = s % T::STAGES;
    tma::barrier_wait(&full[b], (s / T::STAGES) % 2);  // slice s has landed
    const std::uint32_t a = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared)) + b * SLICE_BYTES +
                            warpgroup * 64 * ROW_BYTES;
    const std::uint32_t bt = static_cast<std::uint32_t>(__cvta_generic_to_shared(shared)) + b * SLICE_BYTES + A_BYTES;
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < T::TILE_K / 8; ++kk)  // k-steps of 8 floats: 32 bytes further into each row
      wgmma_m64n256k8_tf32(acc, swizzled_tile_descriptor(a + 32 * kk), swizzled_tile_descriptor(bt + 32 * kk), 1);
    wgmma_commit();
    // Slice s's products run on while the warps wait for slice s - 1's: then its buffer is free.
    wgmma_wait<1>();
    if (s > 0) tma::barrier_arrive(&empty[(s - 1) % T::STAGES]);
  }
  wgmma_wait<0>();
  wgmma_operand_fence(acc);
  store_warpgroup_tile(acc, C, M, N, std::int64_t{row0} + warpgroup * 64, col0, pairs);
#endif
}
//! [kernel]

// ---- Launcher ------------------------------------------------------------------------------------

std::size_t tma_wgmma_tf32_workspace_bytes(int M, int N, int K) {
  return sizeof(float) * static_cast<std::size_t>((std::int64_t{M} + N) * padded_k(K));
}

std::string tma_wgmma_tf32_unavailable() { return wgmma_unavailable_here(); }

LaunchConfig matmul_tma_wgmma_tf32(const MatmulArgs& a) {
  require_valid(a, "matmul_tma_wgmma_tf32");
  require_wgmma_launch("matmul_tma_wgmma_tf32", SHARED_BYTES);
  const std::int64_t Kp = padded_k(a.K);
  // A is read in place where each row of a box is one aligned 128-byte line; elsewhere a box row would
  // straddle two lines (in a probe at 4096 x 4096 x 4100 on an H100, 20% slower than at K = 4096),
  // and the copy costs less. The TMA itself needs rows a whole 16 bytes apart, and a 16-byte aligned A.
  const bool copy_a = a.K % T::TILE_K != 0 || reinterpret_cast<std::uintptr_t>(a.A) % 128 != 0;
  float* const bt = prepass_workspace(static_cast<std::size_t>((copy_a ? a.M + std::int64_t{a.N} : a.N) * Kp),
                                      "matmul_tma_wgmma_tf32");
  float* const a_copy = bt + a.N * Kp;

  TransposePrepassKernel<<<transpose_grid(a.N, Kp), TRANSPOSE_THREADS>>>(a.B, a.K, a.N, a.N, Kp, RoundStore{bt});
  CUDA_CHECK_LAUNCH();
  if (copy_a) {
    RowsPrepassKernel<<<8 * current_device_attribute(cudaDevAttrMultiProcessorCount), 256>>>(a.A, a.M, a.K, a.M, Kp,
                                                                                             RoundStore{a_copy});
    CUDA_CHECK_LAUNCH();
  }
  const float* const a_rows = copy_a ? a_copy : a.A;
  const auto pitch = static_cast<std::uint64_t>(sizeof(float) * (copy_a ? Kp : a.K));
  const CUtensorMap a_map = float_tensor_map(a_rows, static_cast<std::uint64_t>(a.K), static_cast<std::uint64_t>(a.M),
                                             pitch, T::TILE_K, T::TILE_M, BoxLayout::swizzled_128b, 256);
  const CUtensorMap bt_map = float_tensor_map(bt, static_cast<std::uint64_t>(a.K), static_cast<std::uint64_t>(a.N),
                                              sizeof(float) * static_cast<std::uint64_t>(Kp), T::TILE_K, T::TILE_N,
                                              BoxLayout::swizzled_128b, 256);

  CUDA_CHECK(cudaFuncSetAttribute(TmaWgmmaKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(SHARED_BYTES)));
  // Pairs of outputs are stored as float2 where every row of C starts 8-byte aligned.
  const bool pairs = a.N % 2 == 0 && reinterpret_cast<std::uintptr_t>(a.C) % 8 == 0;
  const unsigned blocks = static_cast<unsigned>(ceil_div(a.M, T::TILE_M) * ceil_div(a.N, T::TILE_N));
  TmaWgmmaKernel<<<blocks, T::THREADS, SHARED_BYTES>>>(a_map, bt_map, a.C, a.M, a.N, a.K, pairs);
  CUDA_CHECK_LAUNCH();
  return {{blocks, 1, 1}, {T::THREADS, 1, 1}, SHARED_BYTES};
}

}  // namespace pmpp::ch05
