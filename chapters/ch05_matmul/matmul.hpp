/// @file matmul.hpp
/// @brief Chapter 5, memory architecture and data locality, told through matrix multiplication: the
/// stage table, the launchers, the cuBLAS baseline, the CPU checker and the text's analysis. Plain C++
/// (no kernel syntax), so tests and drivers are ordinary .cpp files.
///
/// The chapter number is PMPP's (4th ed.): tiled matrix multiplication is the example of chapter 5,
/// *Memory architecture and data locality*. Its naive kernel comes from section 3.4 and coalescing
/// from section 6.1; both are gathered here because the chapter's argument needs them.
///
/// Conventions shared by every stage:
/// - `C = A B` with A of M x K, B of K x N and C of M x N, all row-major `float` (the BLAS names;
///   the text calls the three matrices M, N and P and makes them square, `Width` x `Width`);
/// - element (row, col) of an R x S matrix X is `X[row * S + col]`, indexed in 64 bits so that a
///   matrix over 2^31 elements works;
/// - every size from 1 up to MAX_DIM is allowed; nothing needs to be a multiple of a tile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pmpp/check.hpp"
#include "pmpp/launch_config.hpp"
#include "pmpp/math.hpp"
#include "pmpp/tf32.hpp"

struct cublasContext;  // cuBLAS's handle type, declared so that this header needs no CUDA header

namespace pmpp::ch05 {

/// Largest M, N or K: the rows of C go on the grid's y dimension, which holds at most 65535 blocks,
/// and the shortest block (stage 01's, 16 rows) then covers 65535 * 16 rows.
inline constexpr int MAX_DIM = 65535 * 16;

/// Stage 01's block: 16 x 16 threads, as in the text.
inline constexpr int NAIVE_BLOCK_DIM = 16;

/// Stage 03's shape (beyond the text): a block computes a TILE_M x TILE_N tile of C with
/// (TILE_M / THREAD_M) * (TILE_N / THREAD_N) threads, each holding THREAD_M x THREAD_N results in
/// registers, stepping through K in slices of TILE_K.
struct RegisterTiling {
  static constexpr int TILE_M = 128;
  static constexpr int TILE_N = 128;
  static constexpr int TILE_K = 8;
  static constexpr int THREAD_M = 8;
  static constexpr int THREAD_N = 8;
  static constexpr int THREADS = (TILE_M / THREAD_M) * (TILE_N / THREAD_N);
};

/// Stage 04's shape (beyond the text): a block of THREADS threads computes a TILE_M x TILE_N tile of C,
/// stepping through K in slices of TILE_K; each warp owns a WARP_M x WARP_N part of the tile, its
/// lanes arranged LANES_M down by 32 / LANES_M across, each lane holding blocks of 4 x 4 results.
/// Chosen by measurement (the book's chapter-5 page lists the shapes tried).
struct WarpTiling {
  static constexpr int TILE_M = 128;
  static constexpr int TILE_N = 256;
  static constexpr int TILE_K = 16;
  static constexpr int WARP_M = 64;
  static constexpr int WARP_N = 64;
  static constexpr int LANES_M = 4;
  static constexpr int MIN_BLOCKS = 1;  ///< blocks per SM the registers must allow (__launch_bounds__)
  static constexpr int THREADS = 32 * (TILE_M / WARP_M) * (TILE_N / WARP_N);
};

/// Stage 05's shape (beyond the text): stage 04's tiles and warps, with K slices of SLICE_K copied by
/// cp.async into STAGES shared-memory buffers. SLICE_K is 32 where a block may have the 96 KB that two
/// such slices take, else 16 (48 KB): async_copy_slice_k(). Chosen by measurement, as WarpTiling.
template <int SLICE_K>
struct AsyncCopyTiling : WarpTiling {
  static constexpr int TILE_K = SLICE_K;
  static constexpr int STAGES = 2;
};

/// Stage 06's shape (beyond the text): 8 warps of 64 x 64 in a 128 x 256 block tile, K slices of 16 (4
/// buffers: 106 KB). Large warp tiles: each float a warp reads from shared memory feeds more mmas.
struct Tf32Tiling {
  static constexpr int TILE_M = 128, TILE_N = 256, TILE_K = 16;
  static constexpr int WARP_M = 64, WARP_N = 64;
  static constexpr int THREADS = 32 * (TILE_M / WARP_M) * (TILE_N / WARP_N);
};

/// Stage 07's shape (beyond the text): 4 warps of 64 x 64 in a 128 x 128 block tile, K slices of 16 (4
/// buffers: 74 KB). Each fragment float a warp loads feeds 8 or 4 tiles' products, as in stage 06, but
/// with the big and small parts a thread needs all 255 registers (and spills a few bytes), so a block
/// has 4 warps; two blocks fit an SM where its registers and shared memory allow (A100, H100), one
/// multiplying while the other waits at its barrier. In a probe on an H100 at 4096^3: 2.10 ms, against
/// 2.41 ms for 8 warps of 64 x 32 in one block per SM.
struct Split3Tiling {
  static constexpr int TILE_M = 128, TILE_N = 128, TILE_K = 16;
  static constexpr int WARP_M = 64, WARP_N = 64;
  static constexpr int THREADS = 32 * (TILE_M / WARP_M) * (TILE_N / WARP_N);
};

/// Stage 08's shape (beyond the text; Hopper only): two warpgroups (8 warps) per 128 x 128 block tile,
/// each multiplying 64 rows of it by all 128 columns with wgmma m64n128k8; K slices of 32 floats (one
/// 128-byte swizzled row per row of a part) in 3 buffers of big and small parts of A and B (192 KB).
struct WgmmaTiling {
  static constexpr int TILE_M = 128, TILE_N = 128, TILE_K = 32;
  static constexpr int WARPGROUPS = 2, THREADS = 128 * WARPGROUPS, STAGES = 3;
};

/// Stage 09's shape (beyond the text; Hopper only): 128 x 256 tiles of C. Two warpgroups each multiply 64
/// rows of a tile by all 256 columns with wgmma m64n256k8, and a ninth warp copies: one of its threads asks
/// the TMA for each K slice of 32 floats of A and of B transposed (16 KB + 32 KB), into 4 buffers (192 KB).
/// Blocks walk C in groups of GROUP_ROWS rows of tiles (tile_of_block), so that the blocks running at once
/// share their slices of A and B in L2.
struct TmaWgmmaTiling {
  static constexpr int TILE_M = 128, TILE_N = 256, TILE_K = 32, STAGES = 4;
  static constexpr int CONSUMER_WARPGROUPS = 2, CONSUMER_THREADS = 128 * CONSUMER_WARPGROUPS;
  static constexpr int THREADS = CONSUMER_THREADS + 32;  // and the copy warp
  static constexpr int GROUP_ROWS = 8;
};

/// Where a block's tile of C is, counted in tiles.
struct TilePosition {
  int row, col;
};
/// The tile of C that block @p block (of tile_rows x tile_cols, numbered in launch order) computes.
/// Consecutive blocks walk down a group of @p group_rows rows of tiles, then to the group's next column:
/// the blocks an SM-full wave holds then cover a few columns of tiles of a few rows, and read each slice
/// of A and of B from DRAM about once, the rest from L2. Every tile is some block's, exactly once.
PMPP_HOST_DEVICE constexpr TilePosition tile_of_block(int block, int tile_rows, int tile_cols, int group_rows) {
  const int group = block / (group_rows * tile_cols);
  const int first_row = group * group_rows;
  const int rows = tile_rows - first_row < group_rows ? tile_rows - first_row : group_rows;  // the last group's
  const int in_group = block - group * group_rows * tile_cols;
  return {first_row + in_group % rows, in_group / rows};
}

using pmpp::Dim3;
using pmpp::LaunchConfig;

/// One product `C = A B` in device memory.
struct MatmulArgs {
  const float* A = nullptr;  ///< device, M x K
  const float* B = nullptr;  ///< device, K x N
  float* C = nullptr;        ///< device, M x N; every element is written
  int M = 0;
  int N = 0;
  int K = 0;
  int tile = 0;  ///< TILE_WIDTH of stage 02 (16 or 32); 0 means the stage's default
};

/// Throw std::invalid_argument, naming @p launcher, unless 1 <= M, N, K <= MAX_DIM and the pointers
/// are set. Every launcher calls it before it launches anything.
void require_valid(const MatmulArgs& args, const char* launcher);
/// True when every row of A, B and C starts on a 16-byte boundary (N % 4 == 0, K % 4 == 0, and the
/// three pointers 16-byte aligned): the register-tiled stages then move float4s.
bool float4_operands(const MatmulArgs& args);

/// How one warp's 32 lanes touch global memory in one access of a kernel (section 6.1's question).
struct WarpAccess {
  std::string access;          ///< "A load", "B load", "C store"
  std::string index;           ///< the element index as the kernel computes it
  int bytes_per_lane = 4;      ///< 4 for a float, 16 for a float4
  int distinct_elements = 0;   ///< different floats the 32 lanes touch
  int sectors = 0;             ///< different 32-byte sectors: what the memory system must move
  double used_fraction = 0;    ///< distinct bytes the lanes use / (sectors * 32)
  /// "coalesced" (every fetched byte is used), "broadcast" (lanes share a few addresses) or
  /// "partly coalesced".
  std::string verdict() const;
};

/// Build a WarpAccess from the element each lane touches (lane 0..31), with 4-byte elements and
/// matrices starting on a 256-byte boundary (cudaMalloc's guarantee).
WarpAccess warp_access(std::string access, std::string index, int bytes_per_lane,
                       const std::function<std::int64_t(int lane)>& element_of_lane);

struct ErrorBound;

/// One row of the chapter: everything a driver or a test needs to run a stage.
struct Stage {
  const char* id;              ///< "02_tiled": the file name and the program's suffix
  const char* title;           ///< one line for tables
  const char* figure;          ///< the text's section and figure this stage mirrors ("PMPP sec. 3.4, Fig 3.11")
  std::vector<int> tiles;      ///< the TILE_WIDTH values it is compiled for; empty: no choice
  /// Enqueue the kernel on the default stream; checks the launch; does not synchronize.
  LaunchConfig (*launch)(const MatmulArgs& args);
  /// The text's model: floating-point operations per byte loaded from global memory (tile: as in
  /// MatmulArgs).
  double (*text_op_per_byte)(int tile);
  /// The first warp's global accesses in the inner loop and the store, for a problem with N columns
  /// and K inner elements (alignment depends on them).
  std::vector<WarpAccess> (*warp_accesses)(int tile, int N, int K);
  /// Why a measurement on a GPU with large caches differs from the text's model (one line).
  const char* model_note;
  /// How a warp touches shared memory in the main loop, in one line ("-": the stage uses none); the
  /// profiler prints it next to the bank-conflict counter.
  const char* shared_access;
  /// The shared-memory bank conflicts that access predicts for a problem with N columns and K inner
  /// elements (alignment decides the copies' width); -1 where there is no prediction.
  long long (*bank_conflicts)(int N, int K);
  /// The arithmetic: "FP32" (FFMA), "TF32" (operands rounded to TF32 on tensor cores) or "3xTF32".
  const char* arithmetic;
  /// The checker's bound on |result - exact| for one entry of C: FP32_ROUNDING, TF32_ROUNDING or
  /// SPLIT_TF32_ROUNDING.
  const ErrorBound* error_bound;
  /// Null where the stage runs on every GPU this build supports; else a function that says, on the current
  /// GPU, why the stage cannot run there (one line), or returns "" when it can. Programs and tests skip it.
  std::string (*unavailable)();
};

/// Every stage, in the text's order.
const std::vector<Stage>& stages();
/// The stage with this id, or nullptr.
const Stage* find_stage(std::string_view id);
/// The TILE_WIDTH a stage runs with for @p requested (0: its first, the text's).
int effective_tile(const Stage& stage, int requested);

// ---- Stage launchers (one per .cu file) -------------------------------------------------------

/// Section 3.4, Fig 3.11 (01_naive.cu): one thread per element of C, 16 x 16 blocks.
/// @pre require_valid(args). @see matmul_tiled (next stage)
LaunchConfig matmul_naive(const MatmulArgs& args);
/// Sections 5.4-5.5, Fig 5.9 with the boundary checks of Fig 5.13 (02_tiled.cu): TILE_WIDTH x
/// TILE_WIDTH tiles of A and B in shared memory, one element of C per thread.
/// @pre require_valid(args); args.tile is 0, 16 or 32. @see matmul_naive (previous),
/// matmul_register_tiled (next)
LaunchConfig matmul_tiled(const MatmulArgs& args);
/// Beyond the text (03_register_tiled.cu): 2D thread coarsening, RegisterTiling's shape, float4
/// global loads where N % 4 == K % 4 == 0 and the operands are 16-byte aligned.
/// @pre require_valid(args). @see matmul_tiled (previous), matmul_warp_tiled (next)
LaunchConfig matmul_register_tiled(const MatmulArgs& args);
/// Beyond the text (04_warp_tiled.cu): stage 03 reorganized around warps, WarpTiling's shape, float4
/// global loads under the same conditions as stage 03.
/// @pre require_valid(args). @see matmul_register_tiled (previous), matmul_async_copy (next)
LaunchConfig matmul_warp_tiled(const MatmulArgs& args);
/// Beyond the text (05_async_copy.cu): stage 04's tiling fed by cp.async copies into two shared
/// buffers, K slices of async_copy_slice_k(); 16-byte copies under the same conditions as stage 03's
/// float4 loads.
/// @pre require_valid(args). @see matmul_warp_tiled (previous), matmul_tf32 (next), CublasSgemm (the baseline)
LaunchConfig matmul_async_copy(const MatmulArgs& args);
/// Stage 05 with K slices of @p slice_k (16 or 32) whatever the GPU would choose: for tests, and to
/// compare the two. Throws std::invalid_argument for another value or when the GPU cannot give a block
/// async_copy_shared_bytes(slice_k).
LaunchConfig matmul_async_copy_slices(const MatmulArgs& args, int slice_k);
/// Beyond the text (06_tf32_tensor_cores.cu): stage 05's pipeline with 4 buffers feeding mma.sync on
/// TF32-rounded operands, Tf32Tiling's shape.
/// @pre require_valid(args); tf32_unavailable() is empty (else std::runtime_error).
/// @see matmul_async_copy (previous), matmul_3xtf32 (next)
LaunchConfig matmul_tf32(const MatmulArgs& args);
/// Beyond the text (07_3xtf32.cu): stage 06's kernel with each operand split into a big and a small TF32
/// part and three products per tile, Split3Tiling's shape: FP32 accuracy from tensor cores.
/// @pre as matmul_tf32, with split_tf32_unavailable(). @see matmul_tf32 (previous), CublasSgemm
LaunchConfig matmul_3xtf32(const MatmulArgs& args);
/// Beyond the text (08_wgmma_3xtf32.cu): stage 07's three products on Hopper's warpgroup MMA, WgmmaTiling's
/// shape, from operands split once by a pre-pass into a workspace the stage keeps between calls.
/// @pre require_valid(args); wgmma_3xtf32_unavailable() is empty (else std::runtime_error).
/// @see matmul_3xtf32 (previous), CublasSgemm
LaunchConfig matmul_wgmma_3xtf32(const MatmulArgs& args);
/// Why stage 08 cannot run on the current GPU, in one line; "" when it can: it needs compute capability
/// 9.0 exactly (wgmma is Hopper's own), and code compiled for sm_90a.
std::string wgmma_3xtf32_unavailable();
/// The device memory stage 08 keeps for an M x N x K product beside A, B and C: both operands split into
/// two TF32 parts, padded to whole tiles, 2 (M + N) K floats.
std::size_t wgmma_3xtf32_workspace_bytes(int M, int N, int K);
/// Beyond the text (09_tma_wgmma_tf32.cu): TF32 on Hopper's warpgroup MMA, TmaWgmmaTiling's shape, its
/// slices copied by the TMA. A pre-pass rounds B to TF32 and transposes it into a workspace the stage keeps
/// between calls; A goes to the tensor cores as it is, which cut it to TF32 (the pre-pass rounds a copy of
/// A instead where K % 32 != 0 or A is not 128-byte aligned: rows of A that are not whole 128-byte
/// lines would slow every copy).
/// @pre require_valid(args); tma_wgmma_tf32_unavailable() is empty (else std::runtime_error).
/// @see matmul_wgmma_3xtf32 (previous), matmul_tf32 (stage 06, the same arithmetic), CublasSgemm
LaunchConfig matmul_tma_wgmma_tf32(const MatmulArgs& args);
/// Why stage 09 cannot run on the current GPU, in one line; "" when it can (as stage 08).
std::string tma_wgmma_tf32_unavailable();
/// The most device memory stage 09 keeps for an M x N x K product beside A, B and C: B transposed, and
/// where the pre-pass copies A, A too, with rows padded to a multiple of 32 floats.
std::size_t tma_wgmma_tf32_workspace_bytes(int M, int N, int K);
/// Why stage 06 (07) cannot run on the current GPU, in one line; "" when it can: it needs compute
/// capability 8.0, and code compiled for 8.0 or later (a PTX-only build for 7.5 has no tensor cores).
std::string tf32_unavailable();
std::string split_tf32_unavailable();
/// Shared memory stage 05 takes with K slices of @p slice_k: two slices of A and of B.
std::size_t async_copy_shared_bytes(int slice_k);
/// The K slice stage 05 uses on the current GPU: 32 if a block may have async_copy_shared_bytes(32)
/// (96 KB: compute capability 8.0 and later), else 16.
int async_copy_slice_k();

// ---- Library baseline (cublas_sgemm.cpp) ------------------------------------------------------

/// True when this build found cuBLAS at configure time (PMPP_HAVE_CUBLAS).
bool cublas_available();
/// Why this build has no cuBLAS (empty when it has).
std::string cublas_missing();

/// cuBLAS SGEMM on the same row-major operands. By default in plain fp32: the math mode is
/// CUBLAS_DEFAULT_MATH, so no TF32 tensor-core shortcut is taken. With @p allow_tf32 the mode is
/// CUBLAS_TF32_TENSOR_OP_MATH: cuBLAS may round the operands to TF32 (stage 06's peer). Owns its handle
/// (create once, reuse for every call). Without cuBLAS in the build, the constructor throws
/// std::runtime_error(cublas_missing()).
class CublasSgemm {
 public:
  explicit CublasSgemm(bool allow_tf32 = false);
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;
  /// Enqueue C = A B on the default stream. cuBLAS is column-major: a row-major M x N matrix is a
  /// column-major N x M one, so it computes C^T = B^T A^T by passing B first.
  LaunchConfig launch(const MatmulArgs& args) const;

 private:
  cublasContext* handle_ = nullptr;
};

// ---- CPU checker (reference.cpp) --------------------------------------------------------------

/// Entries of C computed on the CPU in double, with what is needed to bound float rounding.
struct Reference {
  std::vector<std::int64_t> index;  ///< flat index row * N + col of each checked entry, ascending
  std::vector<double> value;        ///< sum_k A[row][k] * B[k][col]
  std::vector<double> magnitude;    ///< sum_k |A[row][k] * B[k][col]|
};

/// Every entry of C, rows spread over the CPU's cores.
Reference matmul_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K);
/// Only the entries listed in @p entries (flat indices, ascending): for products too large to
/// check whole on a CPU.
Reference matmul_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K,
                           const std::vector<std::int64_t>& entries);
/// The sample the programs check at large sizes: the whole of rows 0, M/2 and M-1, the whole of
/// columns 0, N/2 and N-1, and @p random_count entries drawn with @p seed; ascending, no repeats.
std::vector<std::int64_t> sample_entries(int M, int N, int random_count, std::uint64_t seed);

/// u = 2^-24, the unit roundoff of float.
inline constexpr double FLOAT_UNIT_ROUNDOFF = 1.0 / 16777216.0;
/// Bound on |float result - exact| for one entry of C: any order of summing K float products,
/// with or without fused multiply-add, errs by at most gamma_{K+1} * sum_k |a_k b_k|, where
/// gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability of Numerical Algorithms, 3.1).
double float_error_bound(int K, double magnitude);
/// Compare C (all M x N entries, as copied back) with the reference at its entries. @p exact demands
/// bit-for-bit equality; otherwise each entry gets its own @p bound (the arithmetic's: float_error_bound
/// for FP32). NaN never passes. Indices in the result are flat indices into C.
CheckResult check_against(const std::vector<float>& C, const Reference& reference, int K, bool exact,
                          double (*bound)(int K, double magnitude) = float_error_bound);

// ---- TF32 (tf32.cpp): what the tensor-core stages do to their operands, emulated on the CPU ----------

/// 2^-11, the unit roundoff of TF32: 10 stored mantissa bits, so rounding to nearest errs by at most
/// half of 2^-10 relative to the value.
inline constexpr double TF32_UNIT_ROUNDOFF = 1.0 / 2048;
/// @p x rounded to the nearest TF32 value, ties away from zero (what cvt.rna.tf32.f32 does), as a float
/// whose low 13 mantissa bits are zero. Infinities and NaN pass through.
using pmpp::tf32_round;
/// @p x cut to TF32, toward zero (stage 07's split): the 13 mantissa bits TF32 does not keep cleared.
using pmpp::tf32_cut;
/// x = big + small + rest: big = tf32_cut(x), small = tf32_cut(x - big), as stage 07 splits on the GPU;
/// |small| < 2^-10 |x|, |rest| < 2^-21 |x|.
struct Tf32Split {
  float big, small;
};
Tf32Split tf32_split(float x);
/// Stage 06's bound: each operand rounded to TF32 (relative error <= u_t = 2^-11), so each product off
/// by at most (2 u_t + u_t^2) |a b|; then the sum's float rounding, float_error_bound of the rounded
/// products (whose magnitudes are within (1 + u_t)^2 of the exact ones).
double tf32_error_bound(int K, double magnitude);
/// The part of stage 07's bound the split adds per product: the dropped a_small b_small (< 2^-20 |a b|)
/// and the two rests (< 2^-21 each), 2^-19 |a b| with a margin for their products with each other.
inline constexpr double SPLIT_TF32_PRODUCT_ERROR = (1.0 / 524288) * (1 + 1.0 / 1024);
/// Stage 07's bound: float_error_bound of the magnitude (enlarged by 2^-8 for the small parts' products)
/// plus SPLIT_TF32_PRODUCT_ERROR times the magnitude: about 32 units of 2^-24 above float_error_bound,
/// which matters only for small K, where the dropped bits can exceed a float sum's few roundings.
double split_tf32_error_bound(int K, double magnitude);

/// Stage 09's bound: A cut to TF32 by the tensor cores (relative error < 2 u_t = 2^-10), B rounded
/// (<= u_t), so each product off by at most (3 u_t + 2 u_t^2) |a b|; the tensor cores' sums are cut
/// toward zero (each off by < 2^-23, twice a float add's 2^-24), so the sum's part of the bound is
/// float_error_bound of 2K + 1 terms.
double tf32_cut_a_error_bound(int K, double magnitude);
/// A checker's per-entry bound with what it allows in words (for the programs' check lines).
struct ErrorBound {
  double (*of)(int K, double magnitude);  ///< |result - exact| allowed for K terms whose |a_k b_k| sum to magnitude
  const char* in_words;
};
/// The three arithmetics' bounds, for the stage rows.
inline constexpr ErrorBound FP32_ROUNDING{float_error_bound,
                                          "gamma(K+1) sum_k |a_k b_k|, gamma(n) = n 2^-24 / (1 - n 2^-24)"};
inline constexpr ErrorBound TF32_ROUNDING{
    tf32_error_bound, "operands rounded to TF32 (2^-11 each), so (2^-10 + 2^-22) sum_k |a_k b_k| more than FP32"};
inline constexpr ErrorBound TF32_CUT_A_ROUNDING{
    tf32_cut_a_error_bound, "A cut to TF32 (2^-10), B rounded (2^-11), sums cut toward zero, so (3 2^-11 + 2^-21) "
                            "sum_k |a_k b_k| more than FP32, and gamma(2K+2) for the sum"};
inline constexpr ErrorBound SPLIT_TF32_ROUNDING{
    split_tf32_error_bound, "big + small parts cut to TF32, a_small b_small dropped, so 2^-19 sum_k |a_k b_k| more than FP32"};

// ---- The text's analysis (analysis.cpp) --------------------------------------------------------

/// 2 M N K: one multiply and one add per term of every dot product.
double flops(int M, int N, int K);
/// Bytes a perfect kernel must move through DRAM: read A and B once, write C once.
double compulsory_bytes(int M, int N, int K);

/// Section 5.1: each step of the dot product loads one float of A and one of B (8 bytes) for one
/// multiply and one add: 2 / 8 = 0.25 OP/B (the source's "1:1 operations to memory accesses").
double naive_op_per_byte();
/// Section 5.4: a TILE_WIDTH^2 block loads 2 TILE_WIDTH^2 floats per phase and performs
/// 2 TILE_WIDTH^3 operations with them: TILE_WIDTH / 4 OP/B.
double tiled_op_per_byte(int tile_width);
/// Stage 03: per slice of K, a block loads TILE_M + TILE_N floats for every k and performs
/// 2 TILE_M TILE_N operations: TILE_M TILE_N / (2 (TILE_M + TILE_N)) OP/B.
double register_tiled_op_per_byte(int tile_m, int tile_n);
/// The text's bound for a kernel whose every load goes to DRAM: bandwidth x intensity, in GFLOP/s.
double memory_bound_gflops(double dram_gb_per_s, double op_per_byte);

/// Stage 01's warp (block 16 x 16: lanes 0-15 in row 0, 16-31 in row 1): A, B and C accesses.
std::vector<WarpAccess> naive_warp_accesses(int tile, int N, int K);
/// Stage 02's warp in the loads of phase 0 and the store.
std::vector<WarpAccess> tiled_warp_accesses(int tile, int N, int K);
/// Stage 03's warp: float4 loads of the A and B slices, float4 stores of C.
std::vector<WarpAccess> register_tiled_warp_accesses(int tile, int N, int K);
/// Stage 04's warp: a k-quad of 32 A rows, consecutive float4s of a B row, float4 stores of C.
std::vector<WarpAccess> warp_tiled_warp_accesses(int tile, int N, int K);
/// Stage 05's warp (K slices of 32): cp.async copies ("A copy", "B copy": not loads through registers)
/// of 8 consecutive k-quads of 4 A rows and of consecutive float4s of a B row; float4 stores of C.
std::vector<WarpAccess> async_copy_warp_accesses(int tile, int N, int K);
/// The 32-byte sectors per global load instruction a warp's loads predict (the mean over the "load"
/// accesses of @p accesses), the figure Nsight Compute reports as sectors per request; a negative
/// value when there are no such loads (stage 05's copies are counted apart from loads).
double sectors_per_load(const std::vector<WarpAccess>& accesses);

/// Threads a warp keeps active in every stage's kernel: a full tile's lanes all compute (only the warps
/// of edge tiles, past M or N, idle some).
inline constexpr int ACTIVE_THREADS_PER_WARP = 32;
/// Bank conflicts of a stage whose shared-memory accesses are laid out to avoid them at every size.
long long no_bank_conflicts(int N, int K);
/// Stages 06 and 07's warp: cp.async copies of an A slice (K slices of 16 or 32) and a B row, float2
/// stores of C (a lane holds two neighbouring columns of a fragment row).
std::vector<WarpAccess> tf32_warp_accesses(int tile, int N, int K);
std::vector<WarpAccess> split_tf32_warp_accesses(int tile, int N, int K);
/// Stage 08's warp: cp.async copies of 4 rows of 32 floats of a split operand (its rows Kp = K rounded
/// up to 32 floats apart), float2 stores of C as in stage 06.
std::vector<WarpAccess> wgmma_warp_accesses(int tile, int N, int K);
std::vector<WarpAccess> tma_wgmma_warp_accesses(int tile, int N, int K);
/// Stage 05: none while the copies move 16 bytes; where N or K is not a multiple of 4 each copy moves
/// one float from an address that is not 16-byte aligned, which the counters report as conflicts of the
/// copies: no prediction (-1).
long long async_copy_bank_conflicts(int N, int K);

}  // namespace pmpp::ch05
