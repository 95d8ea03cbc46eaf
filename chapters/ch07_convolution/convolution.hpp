/// @file convolution.hpp
/// @brief Chapter 7, convolution: the stage table, the CPU reference and the text's analysis. Plain C++
/// (no kernel syntax), so tests and drivers are ordinary .cpp files.
///
/// Conventions shared by every stage (as in the text):
/// - images are row-major `float`, `width` columns by `height` rows; pixel (row, col) is
///   `in[row * width + col]`, indexed in 64 bits so images over 2^31 bytes work;
/// - the filter is `(2r+1) x (2r+1)`, row-major, **not** flipped:
///   `out[row][col] = sum_{i,j in [0, 2r]} F[i][j] * in[row - r + i][col - r + j]`;
/// - ghost cells (inputs outside the image) are zero.
///
/// A stage is one `.cu` file (its kernel and launcher) and one row of the stage table (stages.cpp),
/// which holds everything the programs, tests and book need to know about it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pmpp/launch_config.hpp"
#include "pmpp/tf32.hpp"

namespace pmpp::ch07 {

/// Largest filter radius the tiled kernels are instantiated for (FILTER_RADIUS is a compile-time
/// constant in the text; we compile one kernel per radius 1..MAX_FILTER_RADIUS and pick at run time).
inline constexpr int MAX_FILTER_RADIUS = 8;

/// Side of a (2r+1) x (2r+1) filter.
constexpr int filter_dim(int radius) { return 2 * radius + 1; }

using pmpp::Dim3;
using pmpp::LaunchConfig;

/// One 2D convolution in device memory.
struct Conv2dArgs {
  const float* in = nullptr;      ///< device, width * height
  const float* filter = nullptr;  ///< device, (2r+1)^2; stages using constant memory ignore it
  float* out = nullptr;           ///< device, width * height
  int width = 0;
  int height = 0;
  int radius = 0;
  int tile = 0;                   ///< input tile of a stage with Stage::tiles (0: its default); others ignore it
};

/// What a stage's explanation of its own time may use: the problem, this device's limits and the
/// times measured in this run (all times in milliseconds).
struct Observed {
  int width = 0, height = 0, radius = 0;
  int tile = 0;                 ///< the input tile the stage ran with (0: it has no choice)
  double ms = 0;                ///< this stage's median time
  double first_ms = 0;          ///< the first stage's median time on the same problem
  const char* first_id = "";    ///< the first stage's id
  double dram_floor_ms = 0;     ///< the compulsory 8 B/pixel at peak DRAM bandwidth
  double fp32_floor_ms = 0;     ///< (2r+1)^2 FMAs per pixel at peak FP32 (0: the peak is unknown)
  double tensor_floor_ms = 0;   ///< the stage's Stage::tensor_flops at the TF32 tensor-core peak (0: none)
  double peak_dram_gbps = 0;
  double l2_mib = 0;
};

/// What Nsight Compute should count for a stage, predicted from how its warps touch memory (one
/// warp in the middle of the image; warps on the image's border touch less).
struct CounterPrediction {
  double sectors_per_request = 0;  ///< 32-byte sectors per global load request (0: no prediction)
  double threads_per_warp = 0;     ///< active threads per warp instruction (0: no prediction)
  int bank_conflicts = 0;          ///< shared-memory bank conflicts its access pattern causes
  std::string shared_access;       ///< how a warp reads shared memory, one line ("" if it does not)
  std::string constant_cache;      ///< what the constant cache sees, one line
  std::string note;                ///< why the counters differ from the text's model, one line
};

/// One row of the chapter: everything the programs, tests, profiler and book need to know about a
/// stage. The launchers and upload functions are defined in the stage's .cu file.
struct Stage {
  const char* id;      ///< "01_basic": the file name and the program's suffix
  const char* title;   ///< one line for tables
  const char* figure;  ///< the text's section and figure this stage mirrors, or what it goes beyond
  bool beyond_text;    ///< not in the text: `ch07_convolution --sweep` times it at every radius
  int max_radius;      ///< largest radius this stage accepts
  std::vector<int> tiles;  ///< input tiles (`--tile`) it is compiled for, its default first; empty: none
  /// Why the stage cannot run this problem (args' sizes, radius and tile; the pointers are not read),
  /// as one sentence; empty if it can. nullptr: it runs every problem up to max_radius.
  std::string (*cannot_run)(const Conv2dArgs& problem);
  /// Stages that keep the filter in `__constant__` memory copy it there once, before any launch
  /// (cudaMemcpyToSymbol from host memory). nullptr: the kernel reads Conv2dArgs::filter.
  void (*upload_filter)(const float* host_filter, int radius);
  /// Enqueue the kernel on the default stream; checks the launch; does not synchronize.
  LaunchConfig (*launch)(const Conv2dArgs& args);
  /// The whole host round trip written out (allocate, copy in, launch, copy back, free) on host arrays;
  /// the programs check it too. nullptr for stages that use pmpp::DeviceBuffer instead.
  void (*round_trip)(const float* in, const float* filter, float* out, int width, int height, int radius);
  /// The text's arithmetic-intensity model for this stage, in OP/B (tile: as in Conv2dArgs).
  double (*text_op_per_byte)(int radius, int tile);
  /// Why measured DRAM intensity differs from the text's model on a GPU with large caches.
  const char* model_note;
  /// What the profiler's counters should show for this problem (its section of stages.cpp).
  CounterPrediction (*predict_counters)(const Conv2dArgs& problem);
  /// Why the stage took the time it took, next to the first stage, in a sentence or two.
  std::string (*explain)(const Observed& run);
  /// Why the stage does not run this problem on this GPU, as one line (a radius below those it is
  /// made for, or a GPU or build without the instructions it needs); empty if it runs. Programs show
  /// the line and skip the stage, tests skip it; asked only where there is a GPU. nullptr: it runs
  /// every problem cannot_run allows.
  std::string (*skip_reason)(const Conv2dArgs& problem);
  /// Floating-point operations the stage issues on tensor cores for the whole problem, the products
  /// with the zeros of its formulation included; nullptr for stages that use FP32 FMAs only. At the
  /// TF32 tensor-core peak this is the stage's own floor.
  double (*tensor_flops)(int width, int height, int radius);
};

/// Every stage, in the text's order.
const std::vector<Stage>& stages();
/// The stage with this id, or nullptr.
const Stage* find_stage(std::string_view id);
/// The input tile @p stage runs with when @p requested (0: its default) is asked for; 0 if it has no choice.
int effective_tile(const Stage& stage, int requested);

// ---- Block shapes the launchers and the analysis share ----------------------------------------

/// Stages 01 and 02: one thread per output pixel, 32 x 32 threads per block (the most a block may
/// have), threadIdx.x along a row so that a warp reads 32 consecutive pixels.
inline constexpr int BASIC_BLOCK_DIM = 32;

/// Stage 03's input tile when Conv2dArgs::tile is 0: the text's 32 x 32, the largest square block.
inline constexpr int DEFAULT_IN_TILE_DIM = 32;
/// The input tiles stage 03 is compiled for, the text's first (IN_TILE_DIM is a compile-time constant,
/// as in the text).
std::vector<int> tiled_in_tile_dims();
/// Why stage 03 cannot run with input tile @p in_tile_dim (0: the default) and @p radius on an image
/// @p height rows tall, as one sentence; empty if it can. Programs turn it into a usage error, the
/// launcher into std::invalid_argument.
std::string tiled_tile_error(int in_tile_dim, int radius, int height);

/// Stage 04: input tile, output tile and block are all CACHED_TILE_DIM x CACHED_TILE_DIM (the text's 32).
inline constexpr int CACHED_TILE_DIM = 32;

/// Stage 05: outputs per thread along a row (one float4).
inline constexpr int REGISTER_TILED_COARSE_X = 4;

/// Stage 05's tiling for one filter radius: block_x x block_y threads, each computing a 4-wide,
/// coarse_y-tall patch of outputs, so a block computes an out_w() x out_h() output tile at a time;
/// it walks down tiles_per_block such tiles, prefetching each next one. Each thread adds the filter's
/// rows filter_rows at a time (2r+1: all in one unrolled block of code). min_blocks is the minimum of
/// blocks per SM in the kernel's launch bounds, which caps a thread's registers at 65536 / (min_blocks
/// x threads); 0 names none and leaves the number of registers to the compiler.
struct RegisterTiling {
  int block_x, block_y, coarse_y, tiles_per_block, filter_rows, min_blocks;
  constexpr int out_w() const { return block_x * REGISTER_TILED_COARSE_X; }
  constexpr int out_h() const { return block_y * coarse_y; }
};

/// The tiling stage 05 uses for @p radius, the fastest of those measured on an H100 (the book's
/// "beyond the text" section). Up to r = 2, where DRAM alone sets the pace, wide blocks of one tile
/// each: the halo is a smaller share of a wider tile, and the other blocks on the SM keep DRAM busy
/// while one waits for its tile. Up to r = 5 a thread adds all 2r+1 filter rows in one unrolled block;
/// from r = 6 on that block would not fit the instruction cache, so it adds 2 rows at a time.
constexpr RegisterTiling register_tiling(int radius) {
  return radius <= 2   ? RegisterTiling{64, 8, 4, 1, filter_dim(radius), 0}
         : radius == 3 ? RegisterTiling{16, 8, 4, 2, filter_dim(radius), 0}
         : radius <= 5 ? RegisterTiling{16, 8, 4, 4, filter_dim(radius), 0}
                       : RegisterTiling{16, 8, 8, 1, 2, 1};
}

/// Stage 05 loads r columns of halo rounded up to whole float4s, so every tile row starts 16-byte aligned.
constexpr int register_tiled_pad(int radius) { return (radius + 3) / 4 * 4; }

/// Stage 07's tiling for one filter radius: stage 05's register tiles (block_x x block_y threads of
/// 4 x coarse_y outputs, filter rows added filter_rows at a time), a block walking down
/// tiles_per_block output tiles of which the TMA keeps `buffers` in flight. One TMA copy moves one
/// input tile, at most 256 x 256 elements. Measured on an H100: each is the fastest tried for its
/// radius or within 0.7% of it (differences of the size of the run-to-run noise).
struct TmaTiling {
  int block_x, block_y, coarse_y, tiles_per_block, buffers, filter_rows;
  constexpr int out_w() const { return block_x * REGISTER_TILED_COARSE_X; }
  constexpr int out_h() const { return block_y * coarse_y; }
};
constexpr TmaTiling tma_tiling(int radius) {
  return radius <= 2   ? TmaTiling{32, 8, 4, 1, 1, filter_dim(radius)}
         : radius == 3 ? TmaTiling{32, 8, 4, 2, 2, filter_dim(radius)}
         : radius == 4 ? TmaTiling{16, 8, 4, 2, 2, filter_dim(radius)}
         : radius == 5 ? TmaTiling{32, 8, 4, 2, 2, filter_dim(radius)}
         : radius == 7 ? TmaTiling{16, 8, 4, 2, 2, 4}
                       : TmaTiling{16, 8, 8, 2, 2, 2};
}

/// Stage 06: tensor cores do the multiply-adds, as 3xTF32 products of input rows with Toeplitz
/// matrices of the filter's rows (06_tensor_cores.cu). Below this radius it is skipped: there the
/// DRAM floor is above the FP32 floor, so faster arithmetic has nothing to win.
inline constexpr int TENSOR_MIN_RADIUS = 4;
/// Why stages 06 and 08 skip @p radius, in one line: "" from TENSOR_MIN_RADIUS on.
std::string tensor_radius_skip_reason(int radius);
/// Their launchers refuse radii below TENSOR_MIN_RADIUS: std::invalid_argument naming @p stage.
void require_tensor_radius(const char* stage, int radius);
/// The tensor-core instruction's shape, mma.sync m16n8k8 (TF32): a 16 x 8 block of outputs gains a
/// 16 x 8 by 8 x 8 product per instruction.
inline constexpr int MMA_M = 16, MMA_N = 8, MMA_K = 8;
/// Products per output block and k-step: the big x big, big x small and small x big parts of 3xTF32.
inline constexpr int TF32_PRODUCTS = 3;
/// Stage 06's block: TENSOR_WARPS_X x TENSOR_WARPS_Y warps, each TENSOR_TILES_M x TENSOR_TILES_N
/// output blocks of 16 x 8, so a block computes a 64 x 64 output tile.
inline constexpr int TENSOR_WARPS_X = 2, TENSOR_WARPS_Y = 2, TENSOR_TILES_M = 2, TENSOR_TILES_N = 4;

/// The k-steps of one filter row's product: 8 outputs of a row read 8 + 2r input columns, rounded up
/// to whole steps of MMA_K. Only 2r + 1 of those columns meet a tap for any one output: the rest of
/// each product multiplies zeros.
constexpr int tensor_k_steps(int radius) { return (MMA_N + 2 * radius + MMA_K - 1) / MMA_K; }

/// A float as a TF32 number (10 mantissa bits): rounded to nearest, ties away from zero, the low 13
/// bits cleared, as cvt.rna.tf32.f32 and the stages' to_tf32 do. Infinities and NaN pass unchanged.
using pmpp::tf32_round;
/// x = big + small + (an error below 2^-22 |x|), both parts rounded to TF32: the split 3xTF32 multiplies
/// with, for B in both stages and for A in stage 06 (stage 08 cuts A: pmpp::tf32_cut, to_tf32.cuh).
struct Tf32Split {
  float big, small;
};
Tf32Split split_tf32(float x);
/// T_i[k][n] of stage 06: filter row @p i as a (8 k-steps) x 8 Toeplitz matrix, F[i][k - n] where
/// 0 <= k - n <= 2r, else 0, so that (16 x K input block) x T_i adds row i's taps to 16 x 8 outputs.
float toeplitz_entry(const std::vector<float>& filter, int radius, int i, int k, int n);
/// The Toeplitz matrices of all 2r + 1 filter rows, split into TF32 parts and laid out as the mma's
/// B fragments: for filter row i, k-step s and lane l (g = l / 4, t = l % 4) four floats
/// {big, big, small, small} of T_i[8s + t][g] and T_i[8s + t + 4][g], at index ((i * steps + s) * 32 + l) * 4.
std::vector<float> toeplitz_fragments(const std::vector<float>& filter, int radius);
/// Floating-point operations stage 06 issues: per 16 x 8 output block, (2r + 1) x k-steps x 3 mma
/// instructions of 16 x 8 x 8 multiply-adds (zeros included).
double tensor_core_flops(int width, int height, int radius);
/// The useful share of those: (2r + 1) taps of the 8 k-steps' columns, and one product of three.
double tensor_core_useful_share(int radius);

/// Stage 08: Hopper's wgmma multiplies one input row by the Toeplitz matrices of all 2r + 1 filter rows
/// at once (08_packed_wgmma.cu). Its A is 64 windows of 8 outputs: 8 windows side by side (64 columns)
/// in each of PACKED_SEGMENTS row segments, which one block walks down together.
inline constexpr int PACKED_WINDOWS = 8, PACKED_SEGMENTS = 8;
/// The 8-column blocks of B as stored: T_2r .. T_0, then T_2r .. T_1 again, so that any 2r + 1
/// consecutive blocks are the filter's rows in a rotated order (packed_toeplitz_table).
constexpr int packed_stored_blocks(int radius) { return 2 * filter_dim(radius) - 1; }
/// Floats of stage 08's B: for each k-step, a big and a small TF32 part of 8 k x 8 n per stored block.
constexpr int packed_table_floats(int radius) {
  return tensor_k_steps(radius) * 2 * MMA_K * MMA_N * packed_stored_blocks(radius);
}
/// Stage 08's B in shared-memory order (K-major, no swizzle, in 8 x 4 core matrices of 128 bytes): k-step
/// s, part p (0 big, 1 small), k-half c (k = 8s + 4c .. 8s + 4c + 3), stored block q, column n, k % 4 at
/// index (((s * 2 + p) * 2 + c) * packed_stored_blocks + q) * 32 + n * 4 + k % 4. Block q is
/// T_i with i = 2r - q mod (2r + 1).
std::vector<float> packed_toeplitz_table(const std::vector<float>& filter, int radius);
/// How stage 08 divides an image among its blocks (packed_bands.cpp). A block walks PACKED_SEGMENTS
/// segments of one strip of PACKED_WINDOWS x 8 columns; `bands` rows of blocks stack down the image. A
/// segment of every band but the last has `rows` output rows, the last band's `last_rows` (1 .. rows).
struct PackedBands {
  int columns = 0, bands = 0, rows = 0, last_rows = 0;
};
/// Row steps of a segment of @p rows output rows: rows + 2r, rounded up to whole turns of the ring.
int packed_row_steps(int rows, int radius);
/// The row steps the slowest of @p slots block slots (blocks an SM holds x SMs) runs, blocks dispatched
/// in order: the full bands first, the last band's shorter blocks into the slots they leave free.
long long packed_bands_steps(const PackedBands& plan, int radius, long long slots);
/// Stage 08's division of a width x height image for @p slots block slots: the fewest row steps of the
/// slowest slot, of two plans: segments cut for one wave and rounded up to whole turns of the ring, or
/// rounded down, the rows left over going to a short last band that the free slots work through.
PackedBands packed_bands(int width, int height, int radius, long long slots);

// ---- CPU reference (reference.cpp) ------------------------------------------------------------

/// The checker: the definition above, accumulated in double, rows spread over the CPU's cores.
std::vector<float> convolution_2D_reference(const std::vector<float>& in, const std::vector<float>& filter, int width,
                                            int height, int radius);
/// The 1D form of the definition, `y[i] = sum_j f[j] * x[i - r + j]`, zero ghost cells.
std::vector<double> convolution_1D_reference(const std::vector<double>& x, const std::vector<double>& f);

/// A bound on |gpu - reference| for float inputs with |x| <= max_abs_in: each output adds
/// (2r+1)^2 products in float, so its rounding error is at most about (2r+1)^2 * 2^-24 * sum|F| * max|x|.
double float_error_bound(const std::vector<float>& filter, float max_abs_in);

// ---- The text's analysis (analysis.cpp) --------------------------------------------------------

/// Floating-point operations the text counts: one multiply and one add per filter tap per pixel.
double flops(int width, int height, int radius);
/// Bytes a perfect kernel must move through DRAM: read every pixel once, write it once.
double compulsory_bytes(int width, int height);

/// Section 7.2: 2 operations per 8 bytes loaded (a pixel and a filter value), 0.25 OP/B.
double basic_op_per_byte(int radius);
/// Section 7.3: the filter comes from the constant cache, 2 operations per 4 bytes, 0.5 OP/B.
double constant_memory_op_per_byte(int radius);
/// Section 7.4: a block loads an IN_TILE_DIM^2 input tile once and computes the
/// (IN_TILE_DIM - 2r)^2 outputs of its output tile from it.
double tiled_op_per_byte(int in_tile_dim, int radius);
/// The limit of tiled_op_per_byte for very large tiles: (2r+1)^2 / 2.
double tiled_op_per_byte_bound(int radius);
/// Section 7.5: each block loads only its output tile (halo reads hit the caches):
/// (2r+1)^2 * 2 operations per 4 bytes.
double cached_halo_op_per_byte(int radius);
/// Stage 05 in the text's model: a block loads its (OUT_W + 2 pad) x (OUT_H + 2r) input tile once and
/// computes its OUT_W x OUT_H outputs from it.
double register_tiled_op_per_byte(int radius);
/// Stage 07 in the same model, on its own tile (tma_tiling).
double tma_tiles_op_per_byte(int radius);

/// The text's Fig 7.14 as a table: OP/B of the tiled kernel for input tiles 8..32 and the bound,
/// for the filter sizes the figure shows (and more).
struct Fig714Row {
  int radius;
  std::vector<double> op_per_byte;  ///< one per tile in fig_7_14_tiles()
  double bound;
};
std::vector<int> fig_7_14_tiles();
std::vector<Fig714Row> fig_7_14();

/// 32-byte sectors one warp request touches when each of its active lanes reads @p bytes_per_lane
/// bytes from byte offset first_bytes[lane] of an allocation aligned to 256 bytes (cudaMalloc's
/// guarantee). The stages' CounterPredictions replay their warps' loads with it.
int sectors_touched(const std::vector<long long>& first_bytes, int bytes_per_lane);

}  // namespace pmpp::ch07
