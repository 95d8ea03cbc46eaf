// =================================================================================================
// Stage 05: asynchronous copies into double-buffered shared memory (beyond the text)
//
// What it is:  stage 04's tiling (128 x 256 block tiles, 8 warps of 64 x 64, 16 x 8 results per lane)
//              fed by cp.async: each K slice goes from global to shared memory without passing through
//              registers, into one of two buffers. While slice s is multiplied out of one, slice s + 1
//              lands in the other; one barrier per slice publishes the new slice and frees the old one.
// Changed:     no staging registers, so slices of 32 fit (half of stage 04's barriers). A's slice keeps
//              global memory's layout, k along a row (cp.async copies bytes, it cannot transpose); its
//              16-byte chunks are swizzled so that the 4 rows a warp reads at once start in different
//              banks. The loop's copies test nothing: rows past M and columns past N repeat the last
//              ones, and a short slice comes first, zero-filled by the copies made before the loop.
//              Each lane loads its next four k-steps of A while it issues the multiply-adds of these.
// Limitation:  instruction issue, as in stage 04: with two warps per scheduler, a cycle is lost whenever
//              both wait at once: at the barrier that ends each slice, on shared memory, or held back at
//              dispatch (the compiler's choice of registers, which CUDA C does not control). Tensor
//              cores (TF32) are the step after this one, and a different arithmetic.
// Preconditions: 1 <= M, N, K <= MAX_DIM, any sizes and alignments: 16-byte copies and float4 stores when
//              float4_operands, else 4-byte copies and scalar stores. Two slices of 32 take 96 KB of
//              shared memory; where a block may have less (compute capability 7.5: 64 KB) the slices
//              are 16 (48 KB). Compiled for 7.5, which has no cp.async, the copies are loads and stores.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch05_matmul/async_copy.cuh"
#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/warp_tile.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

// ---- Kernel -------------------------------------------------------------------------------------

/// Where element (m, k) of an A slice lives in shared memory: row m holds TILE_K floats, its 16-byte
/// chunks (k-quads) in the order q ^ ((m / 4) % 4).
template <int TILE_K>
__device__ __forceinline__ int a_slot(int m, int k) {
  return m * TILE_K + (((k / 4) ^ ((m / 4) % 4)) * 4) + k % 4;
}

/// Component K of a float4, chosen at compile time (so that the float4 stays in registers).
template <int K>
__device__ __forceinline__ float component(const float4& v) {
  if constexpr (K == 0) return v.x;
  else if constexpr (K == 1) return v.y;
  else if constexpr (K == 2) return v.z;
  else return v.w;
}

/// One k-step of a lane's multiply-adds: its LANE_N values of the B slice's row bRow times component KK
/// of each of its LANE_M float4s of A (k = 4q + KK). Each row of results is added in turn, in a snake:
/// every other row (and every other k-step) runs right to left, so that consecutive multiply-adds share
/// an operand. Which order the rows and columns take is otherwise free, and it changes how the compiler
/// assigns registers; this one was the fastest of the 30 orders timed (the book's chapter 5): even
/// k-steps take the rows last to first, odd ones the first row of each block of 4, then the second, and
/// so on; the columns run with a row's two blocks of 4 swapped (4..7 before 0..3, or that reversed).
/// In the last step of a quad (KK = 3) a float4 is spent once its row is done; with @p reload it is
/// refilled at once with that row's next quad, from @p next_a: the next quad's loads leave while this
/// one's multiply-adds are still being issued.
template <class G, int KK>
__device__ __forceinline__ void multiply_step(float4 (&a)[G::LANE_M], const float* bRow, int laneCol,
                                              float (&acc)[G::LANE_M][G::LANE_N], bool reload = false,
                                              const float* next_a = nullptr) {
  float b[G::LANE_N];
#pragma unroll
  for (int j = 0; j < G::N_ITER; ++j) {
    const float4 v = *reinterpret_cast<const float4*>(&bRow[laneCol + j * 4 * G::LANES_N]);
    b[4 * j] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
  }
#pragma unroll
  for (int ii = 0; ii < G::LANE_M; ++ii) {
    const int i = KK % 2 == 0 ? G::LANE_M - 1 - ii : (ii % G::M_ITER) * 4 + ii / G::M_ITER;
#pragma unroll
    for (int jj = 0; jj < G::LANE_N; ++jj) {
      const int c = (jj + G::LANE_N / 2) % G::LANE_N;  // jj with the two halves of the row swapped
      const int j = (ii + KK) % 2 == 0 ? c : G::LANE_N - 1 - c;
      acc[i][j] += component<KK>(a[i]) * b[j];
    }
    if (KK == 3 && reload) a[i] = *reinterpret_cast<const float4*>(&next_a[G::result_row(i) * G::TILE_K]);
  }
}

//! [multiply_slice]
/// Multiply-add the slice in the buffers as and bs into the lane's results, four k-steps (a quad) at a
/// time: a float4 of each of the lane's LANE_M rows of A holds its four values of k. @p swizzle: the
/// chunk order of those rows (all the same, see a_slot). The float4s of quad q + 1 are loaded during
/// quad q's last step (software pipelining): only the first quad's loads are waited for.
template <class G>
__device__ __forceinline__ void multiply_slice(const float* as, const float* bs, int laneRow, int laneCol, int swizzle,
                                               float (&acc)[G::LANE_M][G::LANE_N]) {
  constexpr int QUADS = G::TILE_K / 4;
  const float* const aRows = as + laneRow * G::TILE_K;
  float4 a[G::LANE_M];
#pragma unroll
  for (int i = 0; i < G::LANE_M; ++i)
    a[i] = *reinterpret_cast<const float4*>(&aRows[G::result_row(i) * G::TILE_K + swizzle * 4]);
#pragma unroll
  for (int q = 0; q < QUADS; ++q) {
    const bool reload = q + 1 < QUADS;  // known at compile time: the loop is unrolled
    const float* const next_a = aRows + ((q + 1) % QUADS ^ swizzle) * 4;  // the last quad reads none
    multiply_step<G, 0>(a, bs + (4 * q + 0) * G::TILE_N, laneCol, acc);
    multiply_step<G, 1>(a, bs + (4 * q + 1) * G::TILE_N, laneCol, acc);
    multiply_step<G, 2>(a, bs + (4 * q + 2) * G::TILE_N, laneCol, acc);
    multiply_step<G, 3>(a, bs + (4 * q + 3) * G::TILE_N, laneCol, acc, reload, next_a);
  }
}
//! [multiply_slice]

template <class Shape, bool VECTOR_IO>
__global__ void __launch_bounds__(WarpTileGeometry<Shape>::THREADS, Shape::MIN_BLOCKS)
    AsyncCopyMatrixMulKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  using G = WarpTileGeometry<Shape>;
  constexpr int TILE_M = G::TILE_M, TILE_N = G::TILE_N, TILE_K = G::TILE_K, STAGES = Shape::STAGES;
  constexpr int THREADS = G::THREADS;
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

  //! [copy_slice]
  // Each thread copies the same column of the same rows of every slice: of A, column aCol of rows
  // aRow0, aRow0 + A_ROW_STEP, ...; of B, column bCol of rows bRow0, bRow0 + B_ROW_STEP, ... So its
  // sources are two pointers that step by a fixed stride from copy to copy, with no index arithmetic
  // per copy. Consecutive threads take consecutive chunks of a row: a warp reads whole 128-byte lines.
  constexpr int VEC = VECTOR_IO ? 4 : 1;  // floats per copy
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

  // Issue the copies of the slice that starts at k0 >= 0 into buffer `stage`: every source is inside
  // the matrices, so no copy is tested.
  auto copySlice = [&](int k0, int stage) {
    float* const as = As + stage * TILE_M * TILE_K;
    float* const bs = Bs + stage * TILE_K * TILE_N;
    const float* a = aFirst + k0;
    const float* b = bFirst + static_cast<std::int64_t>(k0) * N;
#pragma unroll
    for (int l = 0; l < A_COPIES; ++l) {
      copy_async<4 * VEC>(&as[a_slot<TILE_K>(aRow0 + l * A_ROW_STEP, aCol)], a, true);
      if (l + 1 < aRowsInside) a += aStride;
    }
#pragma unroll
    for (int l = 0; l < B_COPIES; ++l) {
      copy_async<4 * VEC>(&bs[(bRow0 + l * B_ROW_STEP) * TILE_N + bCol], b, true);
      if (l + 1 < B_COPIES) b += bStride;
    }
  };
  //! [copy_slice]
  // The same for a slice copied before the loop, which may start before k = 0 (k0 > -TILE_K): a copy
  // of a k before 0 writes zeros and reads nothing, its source the matrix's start. The other sources
  // are computed from k0 copy by copy, which costs little once per block, and never leave the matrix.
  auto copyFirstSlice = [&](int k0, int stage) {
    float* const as = As + stage * TILE_M * TILE_K;
    float* const bs = Bs + stage * TILE_K * TILE_N;
    const float* a = aFirst;
#pragma unroll
    for (int l = 0; l < A_COPIES; ++l) {
      const bool inside = k0 + aCol >= 0;
      copy_async<4 * VEC>(&as[a_slot<TILE_K>(aRow0 + l * A_ROW_STEP, aCol)], inside ? a + k0 : A, inside);
      if (l + 1 < aRowsInside) a += aStride;
    }
#pragma unroll
    for (int l = 0; l < B_COPIES; ++l) {
      const int k = bRow0 + l * B_ROW_STEP;
      const bool inside = k0 + k >= 0;
      const float* const src = inside ? bFirst + static_cast<std::int64_t>(k0 + l * B_ROW_STEP) * N : B;
      copy_async<4 * VEC>(&bs[k * TILE_N + bCol], src, inside);
    }
  };

  float acc[G::LANE_M][G::LANE_N] = {};
  //! [slice_loop]
  // Slices start at kStart = K - slices * TILE_K (between -TILE_K and 0): when K is not a multiple of
  // TILE_K the short slice comes first, padded with zeros before k = 0, and copied (with that test)
  // before the loop; the copies in the loop are never partial.
  const int slices = ceil_div(K, TILE_K), kStart = K - slices * TILE_K;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {  // the first STAGES - 1 slices in flight
    if (s < slices) copyFirstSlice(kStart + s * TILE_K, s);
    copy_async_commit();
  }
  for (int s = 0; s < slices; ++s) {
    copy_async_wait<STAGES - 2>();  // this thread's copies of slice s have landed...
    __syncthreads();                // ...and everyone's; and everyone is done with slice s - 1's buffer
    const int next = s + STAGES - 1;
    if (next < slices) copySlice(kStart + next * TILE_K, next % STAGES);  // into slice s - 1's buffer
    copy_async_commit();  // an empty group at the end keeps the count the wait relies on
    const int cur = s % STAGES;
    multiply_slice<G>(As + cur * TILE_M * TILE_K, Bs + cur * TILE_K * TILE_N, laneRow, laneCol, swizzle, acc);
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
