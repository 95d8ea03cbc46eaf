// =================================================================================================
// Stage 03: register-tiled matrix multiplication (beyond the text; extends the thread coarsening of
// PMPP 4th ed. section 6.3 from one direction to two)
//
// What it is:  a block of 256 threads computes a 128 x 128 tile of C. K is walked in slices of 8:
//              the block copies a 128 x 8 slice of A and an 8 x 128 slice of B into shared memory, and
//              each thread multiplies an 8-float column of the A slice by an 8-float row of the B slice
//              into 8 x 8 running sums held in registers (an outer product per k).
// Changed:     stage 02 does one multiply-add per two shared-memory loads; here 8 + 8 floats read from
//              shared memory (four 16-byte loads) feed 64 multiply-adds, and each float loaded from
//              global memory is used 128 times (32 OP/B in the text's model, against TILE_WIDTH / 4).
//              Global loads are float4 (16 bytes per lane, whole 32-byte sectors per pair of lanes)
//              and the next slice is loaded into registers while the current one is being used
//              (double-buffered shared memory, one barrier per slice).
// Limitation:  the schedulers, not memory: DRAM is nearly idle, and the FMA pipe waits on the other
//              instructions. Each thread's 8 x 8 results take 4 shared-memory reads per 64
//              multiply-adds, and the lanes of a warp read 16 different float4s of Bs, two wavefronts.
//              Stage 04 arranges the threads by warp and doubles the results per thread.
// Preconditions: 1 <= M, N, K <= MAX_DIM. Any sizes and alignments: the float4 path is taken when
//              N % 4 == 0, K % 4 == 0 and A, B, C are 16-byte aligned; otherwise the same kernel is
//              compiled with scalar, bounds-checked loads and stores.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>

#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/tile_io.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch05 {

// ---- Constants ----------------------------------------------------------------------------------

namespace {
constexpr int TILE_M = RegisterTiling::TILE_M;      // rows of C per block
constexpr int TILE_N = RegisterTiling::TILE_N;      // columns of C per block
constexpr int TILE_K = RegisterTiling::TILE_K;      // K per slice held in shared memory
constexpr int THREAD_M = RegisterTiling::THREAD_M;  // rows of C per thread
constexpr int THREAD_N = RegisterTiling::THREAD_N;  // columns of C per thread
constexpr int THREADS = RegisterTiling::THREADS;
constexpr int THREADS_X = TILE_N / THREAD_N;  // threads across a row of the C tile
// Padding of the transposed A slice: a row of 132 floats keeps 16-byte alignment and puts the two
// lanes that store the same A row (k = 0..3 and k = 4..7) sixteen banks apart.
constexpr int A_PAD = 4;

static_assert(THREAD_M == 8 && THREAD_N == 8, "a thread's outputs are two groups of 4 rows and 4 columns");
static_assert(TILE_M / 2 == 4 * (TILE_M / THREAD_M) && TILE_N / 2 == 4 * THREADS_X,
              "the second group of a thread's rows (columns) starts half a tile after the first");
static_assert(TILE_M * TILE_K == 4 * THREADS && TILE_K * TILE_N == 4 * THREADS,
              "each thread copies exactly one float4 of the A slice and one of the B slice");
}  // namespace

// ---- Kernel -------------------------------------------------------------------------------------

template <bool VECTOR_IO>
__global__ void __launch_bounds__(THREADS, 2)
    RegisterTiledMatrixMulKernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                 int M, int N, int K) {
  // A is stored transposed (As[k][m]) so that a thread's 8 rows of one k are two float4 reads.
  __shared__ __align__(16) float As[2][TILE_K][TILE_M + A_PAD];
  __shared__ __align__(16) float Bs[2][TILE_K][TILE_N];

  const int tid = threadIdx.x;
  const int tx = tid % THREADS_X, ty = tid / THREADS_X;
  const int blockRow = blockIdx.y * TILE_M, blockCol = blockIdx.x * TILE_N;

  // The float4 each thread copies: A slice row aRow, k aK..aK+3 (a warp covers 16 rows x 32 bytes);
  // B slice row bK, columns bCol..bCol+3 (a warp covers 512 consecutive bytes of one row of B).
  const int aRow = tid / (TILE_K / 4), aK = (tid % (TILE_K / 4)) * 4;
  const int bK = tid / (TILE_N / 4), bCol = (tid % (TILE_N / 4)) * 4;

  float4 aNext, bNext;
  auto loadSlice = [&](int k0) {
    aNext = load4<VECTOR_IO>(A, blockRow + aRow, M, k0 + aK, K);
    bNext = load4<VECTOR_IO>(B, k0 + bK, K, blockCol + bCol, N);
  };
  auto storeSlice = [&](int buf) {
    As[buf][aK + 0][aRow] = aNext.x;
    As[buf][aK + 1][aRow] = aNext.y;
    As[buf][aK + 2][aRow] = aNext.z;
    As[buf][aK + 3][aRow] = aNext.w;
    *reinterpret_cast<float4*>(&Bs[buf][bK][bCol]) = bNext;
  };

  // A thread owns rows ty*4 + {0..3} and TILE_M/2 + ty*4 + {0..3} of the tile (columns likewise with
  // tx): split in two groups so that the 16 lanes of a half-warp read 256 consecutive bytes of Bs
  // (no bank conflicts) rather than 16 blocks of 32 bytes with gaps.
  float acc[THREAD_M][THREAD_N] = {};

  const int slices = ceil_div(K, TILE_K);
  loadSlice(0);
  storeSlice(0);
  __syncthreads();
  //! [slice_loop]
  for (int s = 0; s < slices; ++s) {
    const int cur = s & 1;
    // Issue the next slice's global loads now; they are in flight while this slice is used.
    if (s + 1 < slices) loadSlice((s + 1) * TILE_K);

#pragma unroll
    for (int k = 0; k < TILE_K; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[cur][k][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[cur][k][TILE_M / 2 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][k][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][k][TILE_N / 2 + tx * 4]);
      const float a[THREAD_M] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[THREAD_N] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
        for (int j = 0; j < THREAD_N; ++j) acc[i][j] += a[i] * b[j];
    }

    // The other buffer was last read in slice s - 1, and every thread has passed the barrier that
    // ended it, so it can be overwritten without a second barrier.
    if (s + 1 < slices) storeSlice(cur ^ 1);
    __syncthreads();
  }
  //! [slice_loop]

#pragma unroll
  for (int i = 0; i < THREAD_M; ++i) {
    const int row = blockRow + (i / 4) * (TILE_M / 2) + ty * 4 + i % 4;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float* v = &acc[i][half * 4];
      store4<VECTOR_IO>(C, row, M, blockCol + half * (TILE_N / 2) + tx * 4, N, make_float4(v[0], v[1], v[2], v[3]));
    }
  }
}

// ---- Launcher -----------------------------------------------------------------------------------

LaunchConfig matmul_register_tiled(const MatmulArgs& a) {
  require_valid(a, "matmul_register_tiled");
  // 256 threads, each computing THREAD_M x THREAD_N elements of a TILE_M x TILE_N tile of C.
  const dim3 block(THREADS);
  // One block per tile of C: N columns by M rows, rounded up.
  const dim3 grid(ceil_div<unsigned>(a.N, TILE_N), ceil_div<unsigned>(a.M, TILE_M));
  if (float4_operands(a))
    RegisterTiledMatrixMulKernel<true><<<grid, block>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  else
    RegisterTiledMatrixMulKernel<false><<<grid, block>>>(a.A, a.B, a.C, a.M, a.N, a.K);
  CUDA_CHECK_LAUNCH();
  const std::size_t shared = sizeof(float) * 2 * TILE_K * ((TILE_M + A_PAD) + TILE_N);
  return {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, shared};
}

}  // namespace pmpp::ch05
