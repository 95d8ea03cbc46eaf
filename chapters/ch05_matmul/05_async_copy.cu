// =================================================================================================
// Stage 05: asynchronous copies into double-buffered shared memory (beyond the text)
//
// What it is:  stage 04's block and warp tiling (128 x 256 tiles, 8 warps of 64 x 64, 16 x 8 results
//              per lane), fed differently: each K slice goes from global to shared memory with cp.async,
//              a copy that does not pass through the thread's registers, into one of two shared
//              buffers. While the block multiplies slice s out of one buffer, slice s + 1 is landing in
//              the other; one barrier per slice both publishes the new slice and frees the old buffer.
// Changed:     - stage 04 staged the next slice in registers (loaded during the multiply-adds, stored to
//                shared memory after them); those 24 registers were part of what capped its slices at
//                16 values of k. With no staging registers, slices of 32 fit: half the barriers, and
//                twice the multiply-adds between one copy and the next;
//              - A's slice keeps global memory's layout, k-contiguous (cp.async copies bytes, it cannot
//                transpose as stage 04's stores did). A lane reads a float4 of four k-steps of one row
//                and uses it for four steps. The 16-byte chunks of row m sit at position
//                q ^ ((m / 4) % 4): the 4 rows a warp reads at once then start in different banks;
//                without the swizzle they are a multiple of 128 bytes apart, a 4-way bank conflict;
//              - no bounds test in the loop: rows of A past M and columns of B past N are read as
//                copies of the last ones (their results are never stored), and when K is not a
//                multiple of 32 the short slice is the first one, its missing k filled with zeros by
//                copies made before the loop. Testing every copy instead cost 2% at 4096^3;
//              - a thread copies the same column of the same rows of every slice, so its sources are
//                two pointers that step by a fixed stride, with no index arithmetic per copy. That
//                matters most for 4-byte copies, four times as many: at 4093 x 4099 x 4097 computing
//                each copy's address from its index took 5.19 ms, the fixed plan 4.52 ms;
//              - each lane adds its 16 x 8 products row by row, every other row right to left, so that
//                consecutive multiply-adds share an operand: in a probe of this kernel, 2.92 ms against
//                3.17 ms for all rows left to right.
//              Measured at 4096^3 on an H100 (L2 evicted, medians, one run): stage 04 3.036 ms (86.9% of
//              cuBLAS), this stage 2.845 ms (48.3 TFLOP/s, 92.7%), cuBLAS 2.638 ms (52.1 TFLOP/s, no
//              TF32). Slices of 16, what a GPU with 64 KB of shared memory per block gets, ran 4% slower.
// Limitation:  instruction issue again (Nsight Compute, profile/recorded/): 93% of the instructions are
//              FMAs (cuBLAS: 89%), but the schedulers issue in 80% of cycles against cuBLAS's 90%, so the
//              FMA pipe is busy 74% of the time against 80%. With two warps per scheduler, a cycle is lost
//              whenever both wait at once: at the barrier that ends each slice, or on shared memory.
//              Copies and barrier together cost about 5%: a probe of this loop with the copies removed
//              (every slice reusing the first: a bound, not a result) ran at 2.74 ms, 97% of cuBLAS.
//              Not faster on the H100: slices of 16 in 2 to 5 buffers, slices of 32 in 3 buffers, slices
//              of 64 (registers spill), 256 x 128 tiles, launching the blocks in groups of rows that
//              share B in L2. Where N or K is not a multiple of 4 every copy moves one float from an
//              address that is not 16-byte aligned, which Nsight Compute counts as shared-memory bank
//              conflicts of the copies (35 million at 4093 x 4099 x 4097, none on the float4 path). With
//              only K odd (4096 x 4096 x 4097) the stage keeps 88% of cuBLAS. At 4093 x 4099 x 4097 it
//              ran at 63% (4.54 ms), stage 04 at 67%, stage 03 at 88%: 4099 columns take 17 tiles of
//              256, so the grid has 544 blocks for 132 SMs that hold one each, 4.1 rounds of blocks
//              of which the fifth keeps 16 SMs busy; stage 03's 1056 blocks of 128 x 128, two per SM, make
//              exactly 4 rounds. Tensor cores (TF32, wgmma) are the step after this one, and a
//              different arithmetic.
// Preconditions: 1 <= M, N, K <= MAX_DIM. Any sizes and alignments: 16-byte copies and float4 stores when
//              N % 4 == 0, K % 4 == 0 and A, B, C are 16-byte aligned (float4_operands); otherwise the
//              same kernel compiled with 4-byte copies and scalar stores. Two slices of 32 take 96 KB of
//              shared memory; on a GPU that gives a block less (compute capability 7.5: 64 KB) the stage
//              uses slices of 16 (48 KB). cp.async needs compute capability 8.0; compiled for 7.5 the
//              copies are ordinary loads and stores.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ch05_matmul/async_copy.cuh"
#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/warp_tile.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

// ---- Kernel -------------------------------------------------------------------------------------

/// Component K of a float4, chosen at compile time (so that the float4 stays in registers).
template <int K>
__device__ __forceinline__ float component(const float4& v) {
  if constexpr (K == 0) return v.x;
  else if constexpr (K == 1) return v.y;
  else if constexpr (K == 2) return v.z;
  else return v.w;
}

/// Where element (m, k) of an A slice lives in shared memory: row m holds TILE_K floats, its 16-byte
/// chunks (k-quads) in the order q ^ ((m / 4) % 4).
template <int TILE_K>
__device__ __forceinline__ int a_slot(int m, int k) {
  return m * TILE_K + (((k / 4) ^ ((m / 4) % 4)) * 4) + k % 4;
}

template <class Shape, bool VECTOR_IO>
__global__ void __launch_bounds__(WarpTileGeometry<Shape>::THREADS, Shape::MIN_BLOCKS)
    AsyncCopyMatrixMulKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  using G = WarpTileGeometry<Shape>;
  constexpr int TILE_M = G::TILE_M, TILE_N = G::TILE_N, TILE_K = G::TILE_K, STAGES = Shape::STAGES;
  constexpr int LANE_M = G::LANE_M, LANE_N = G::LANE_N, THREADS = G::THREADS;
  static_assert(TILE_K % 16 == 0, "a row of an A slice holds at least 4 k-quads, so q ^ 0..3 stays in the row");
  static_assert(G::LANES_M % 4 == 0, "the rows a lane reads are 4 * LANES_M apart: all have the same swizzle");
  static_assert(STAGES >= 2, "a slice lands in one buffer while another is read");
  // STAGES buffers of the A slice (TILE_M x TILE_K, swizzled) and of the B slice (TILE_K x TILE_N).
  extern __shared__ __align__(16) float shared[];
  float* const As = shared;
  float* const Bs = shared + STAGES * TILE_M * TILE_K;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int blockRow = blockIdx.y * TILE_M, blockCol = blockIdx.x * TILE_N;
  const int laneRow = G::lane_row(warp, lane), laneCol = G::lane_col(warp, lane);
  const int swizzle = (laneRow / 4) % 4;  // of every A row this lane reads

  constexpr int VEC = VECTOR_IO ? 4 : 1;  // floats per copy
  //! [copy_slice]
  // Each thread copies the same column of the same rows of every slice: of A, column aCol of rows
  // aRow0, aRow0 + A_ROW_STEP, ...; of B, column bCol of rows bRow0, bRow0 + B_ROW_STEP, ... So its
  // sources are two pointers that step by a fixed stride from copy to copy, with no index arithmetic
  // per copy. Consecutive threads take consecutive chunks of a row, so a warp's reads are whole
  // 128-byte lines.
  constexpr int A_CHUNKS = TILE_K / VEC, A_ROW_STEP = THREADS / A_CHUNKS, A_COPIES = TILE_M / A_ROW_STEP;
  constexpr int B_CHUNKS = TILE_N / VEC, B_ROW_STEP = THREADS / B_CHUNKS, B_COPIES = TILE_K / B_ROW_STEP;
  static_assert(THREADS % A_CHUNKS == 0 && THREADS % B_CHUNKS == 0, "a thread copies one column of its rows");
  const int aCol = tid % A_CHUNKS * VEC, aRow0 = tid / A_CHUNKS;
  const int bCol = tid % B_CHUNKS * VEC, bRow0 = tid / B_CHUNKS;
  // Rows of A past M are not read: the pointer stops at this thread's last row inside A (its copies
  // of rows past M repeat that row; their results are never stored). Columns of B past N read the
  // last column instead.
  const int aRowsInside = min(A_COPIES, ceil_div(max(M - blockRow - aRow0, 1), A_ROW_STEP));
  const float* const aFirst = A + static_cast<std::int64_t>(min(blockRow + aRow0, M - 1)) * K + aCol;
  const float* const bFirst = B + static_cast<std::int64_t>(bRow0) * N + min(blockCol + bCol, N - VEC);
  const std::int64_t aStride = static_cast<std::int64_t>(A_ROW_STEP) * K, bStride = static_cast<std::int64_t>(B_ROW_STEP) * N;

  // Issue the copies of the slice starting at k0 into buffer `stage`. No test in the loop's copies:
  // only the first slice can reach before k = 0 (see the slice loop), where FIRST copies write zeros.
  auto copySlice = [&](int k0, int stage, auto first) {
    constexpr bool FIRST = decltype(first)::value;
    float* const as = As + stage * TILE_M * TILE_K;
    float* const bs = Bs + stage * TILE_K * TILE_N;
    // In the FIRST slice k0 may be negative: a copy of a k before 0 reads nothing, and its source is
    // the matrix's start; the others' sources are computed from k0 (once, so their cost does not
    // matter), never an address outside the matrix.
    const float* a = aFirst + (FIRST ? 0 : k0);
    const float* b = bFirst + static_cast<std::int64_t>(FIRST ? 0 : k0) * N;
#pragma unroll
    for (int l = 0; l < A_COPIES; ++l) {
      const bool inside = !FIRST || k0 + aCol >= 0;
      copy_async<4 * VEC>(&as[a_slot<TILE_K>(aRow0 + l * A_ROW_STEP, aCol)], FIRST ? (inside ? a + k0 : A) : a, inside);
      if (l + 1 < aRowsInside) a += aStride;
    }
#pragma unroll
    for (int l = 0; l < B_COPIES; ++l) {
      const int k = bRow0 + l * B_ROW_STEP;
      const bool inside = !FIRST || k0 + k >= 0;
      const float* firstSrc = inside ? bFirst + static_cast<std::int64_t>(k0 + l * B_ROW_STEP) * N : B;
      copy_async<4 * VEC>(&bs[k * TILE_N + bCol], FIRST ? firstSrc : b, inside);
      if (!FIRST && l + 1 < B_COPIES) b += bStride;
    }
  };
  //! [copy_slice]

  float acc[LANE_M][LANE_N] = {};
  // Multiply-add the slice in buffer `stage`, four k-steps at a time: a float4 of each of the lane's
  // LANE_M rows of A holds its four values of k.
  auto multiplySlice = [&](int stage) {
    const float* const as = As + stage * TILE_M * TILE_K;
    const float* const bs = Bs + stage * TILE_K * TILE_N;
#pragma unroll
    for (int q = 0; q < TILE_K / 4; ++q) {
      float4 a[LANE_M];
#pragma unroll
      for (int i = 0; i < LANE_M; ++i) {
        const int m = laneRow + (i / 4) * 4 * G::LANES_M + i % 4;
        a[i] = *reinterpret_cast<const float4*>(&as[m * TILE_K + (q ^ swizzle) * 4]);
      }
      auto step = [&](auto kk) {  // k = 4q + kk
        constexpr int KK = decltype(kk)::value;
        float b[LANE_N];
#pragma unroll
        for (int j = 0; j < G::N_ITER; ++j) {
          const float4 v = *reinterpret_cast<const float4*>(&bs[(4 * q + KK) * TILE_N + laneCol + j * 4 * G::LANES_N]);
          b[4 * j] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < LANE_M; ++i)
#pragma unroll
          for (int jj = 0; jj < LANE_N; ++jj) {
            const int j = i % 2 == 0 ? jj : LANE_N - 1 - jj;  // serpentine: b[j] is used twice in a row
            acc[i][j] += component<KK>(a[i]) * b[j];
          }
      };
      step(std::integral_constant<int, 0>{});
      step(std::integral_constant<int, 1>{});
      step(std::integral_constant<int, 2>{});
      step(std::integral_constant<int, 3>{});
    }
  };

  //! [slice_loop]
  // Slices start at kStart = K - slices * TILE_K (between -TILE_K and 0): when K is not a multiple of
  // TILE_K the short slice comes first, padded with zeros before k = 0, and copied (with that test)
  // before the loop; the copies in the loop are never partial.
  const int slices = ceil_div(K, TILE_K), kStart = K - slices * TILE_K;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {  // the first STAGES - 1 slices in flight
    if (s < slices) copySlice(kStart + s * TILE_K, s, std::true_type{});
    copy_async_commit();
  }
  for (int s = 0; s < slices; ++s) {
    copy_async_wait<STAGES - 2>();  // this thread's copies of slice s have landed...
    __syncthreads();                // ...and everyone's; and everyone is done with slice s - 1's buffer
    const int next = s + STAGES - 1;
    if (next < slices) copySlice(kStart + next * TILE_K, next % STAGES, std::false_type{});  // slice s - 1's buffer
    copy_async_commit();  // an empty group at the end keeps the count the wait relies on
    multiplySlice(s % STAGES);
  }
  //! [slice_loop]

  store_lane_results<G, VECTOR_IO>(C, M, N, blockRow + laneRow, blockCol + laneCol, acc);
}

// ---- Launcher -----------------------------------------------------------------------------------

namespace {
/// Launch the kernel with tiling @p Shape (AsyncCopyTiling<16 or 32>).
template <class Shape>
LaunchConfig launch_async_copy(const MatmulArgs& a) {
  using G = WarpTileGeometry<Shape>;
  // As stage 04: THREADS threads in warps of WARP_M x WARP_N results, one block per TILE_M x TILE_N
  // tile of C, rounded up.
  const dim3 block(G::THREADS);
  const dim3 grid(ceil_div<unsigned>(a.N, G::TILE_N), ceil_div<unsigned>(a.M, G::TILE_M));
  const std::size_t shared = async_copy_shared_bytes(G::TILE_K);
  auto launch = [&](auto kernel) {
    // Over 48 KB, a kernel's dynamic shared memory must be asked for explicitly.
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    kernel<<<grid, block, shared>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  };
  if (float4_operands(a)) launch(AsyncCopyMatrixMulKernel<Shape, true>);
  else launch(AsyncCopyMatrixMulKernel<Shape, false>);
  CUDA_CHECK_LAUNCH();
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared};
}

/// Launch with K slices of @p slice_k (16 or 32, already checked) on operands already validated.
LaunchConfig launch_slices(const MatmulArgs& a, int slice_k) {
  const std::size_t needed = async_copy_shared_bytes(slice_k);
  const int allowed = current_shared_per_block_optin();
  if (static_cast<std::size_t>(allowed) < needed)
    throw std::invalid_argument("matmul_async_copy: K slices of " + std::to_string(slice_k) + " need " +
                                std::to_string(needed / 1024) + " KB of shared memory per block; this GPU allows " +
                                std::to_string(allowed / 1024) + " KB");
  return slice_k == 32 ? launch_async_copy<AsyncCopyTiling<32>>(a) : launch_async_copy<AsyncCopyTiling<16>>(a);
}
}  // namespace

std::size_t async_copy_shared_bytes(int slice_k) {
  const int tile_m = AsyncCopyTiling<32>::TILE_M, tile_n = AsyncCopyTiling<32>::TILE_N;
  return sizeof(float) * static_cast<std::size_t>(AsyncCopyTiling<32>::STAGES) * slice_k * (tile_m + tile_n);
}

int async_copy_slice_k() {
  return static_cast<std::size_t>(current_shared_per_block_optin()) >= async_copy_shared_bytes(32) ? 32 : 16;
}

LaunchConfig matmul_async_copy_slices(const MatmulArgs& a, int slice_k) {
  require_valid(a, "matmul_async_copy");
  if (slice_k != 16 && slice_k != 32)
    throw std::invalid_argument("matmul_async_copy: K slices of 16 or 32, got " + std::to_string(slice_k));
  return launch_slices(a, slice_k);
}

LaunchConfig matmul_async_copy(const MatmulArgs& a) {
  require_valid(a, "matmul_async_copy");
  return launch_slices(a, async_copy_slice_k());
}

}  // namespace pmpp::ch05
