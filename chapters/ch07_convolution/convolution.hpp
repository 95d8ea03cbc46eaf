/// @file convolution.hpp
/// @brief Chapter 7, convolution: the stage table, the launchers, the CPU reference and the text's
/// analysis. Plain C++ (no kernel syntax), so tests and drivers are ordinary .cpp files.
///
/// Conventions shared by every stage (as in the text):
/// - images are row-major `float`, `width` columns by `height` rows; pixel (row, col) is
///   `in[row * width + col]`, indexed in 64 bits so images over 2^31 bytes work;
/// - the filter is `(2r+1) x (2r+1)`, row-major, **not** flipped:
///   `out[row][col] = sum_{i,j in [0, 2r]} F[i][j] * in[row - r + i][col - r + j]`;
/// - ghost cells (inputs outside the image) are zero.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pmpp/launch_config.hpp"

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
  int tile = 0;                   ///< stage 03's input tile (8, 16 or 32; 0: 32); other stages ignore it
};

/// One row of the chapter: everything a driver or a test needs to run a stage.
struct Stage {
  const char* id;      ///< "01_basic": the file name and the program's suffix
  const char* title;   ///< one line for tables
  const char* figure;  ///< the text's figure this stage mirrors
  int max_radius;      ///< largest radius this stage accepts
  /// Stages that keep the filter in `__constant__` memory copy it there once, before any launch
  /// (cudaMemcpyToSymbol from host memory). nullptr: the kernel reads Conv2dArgs::filter.
  void (*upload_filter)(const float* host_filter, int radius);
  /// Enqueue the kernel on the default stream; checks the launch; does not synchronize.
  LaunchConfig (*launch)(const Conv2dArgs& args);
  /// The text's arithmetic-intensity model for this stage, in OP/B (tile: as in Conv2dArgs).
  double (*text_op_per_byte)(int radius, int tile);
  /// Why measured DRAM intensity differs from the text's model on a GPU with large caches.
  const char* model_note;
};

/// Every stage, in the text's order.
const std::vector<Stage>& stages();
/// The stage with this id, or nullptr.
const Stage* find_stage(std::string_view id);

// ---- Stage launchers (one per .cu file) -------------------------------------------------------

/// Fig 7.7 (01_basic.cu).
LaunchConfig convolution_2D_basic(const Conv2dArgs& args);
/// Fig 7.7 with the whole host round trip written out: allocate, copy in, launch, copy back, free.
/// @param[in] in, filter host arrays; @param[out] out host array of width * height.
void convolution_2D_basic_round_trip(const float* in, const float* filter, float* out, int width, int height,
                                     int radius);

// Stages 02-05 read the filter from `__constant__` memory. A `__constant__` variable belongs to its
// translation unit (the library is built without relocatable device code), so each stage file has its
// own copy and its own upload function; call it before the launch. Each launcher throws
// std::invalid_argument for a radius outside 1..MAX_FILTER_RADIUS (and 03 for a tile with no output).

/// Fig 7.9 (02_constant_memory.cu): copy the (2r+1)^2 host values to that stage's constant memory.
void convolution_2D_const_mem_upload_filter(const float* host_filter, int radius);
/// Fig 7.9: stage 01 with the filter in constant memory and FILTER_RADIUS a compile-time constant.
LaunchConfig convolution_2D_const_mem(const Conv2dArgs& args);

/// Fig 7.12 (03_tiled_halo.cu): the filter upload for that stage.
void convolution_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius);
/// Fig 7.12: blocks the size of the input tile (Conv2dArgs::tile, one of tiled_in_tile_dims()).
LaunchConfig convolution_tiled_2D_const_mem(const Conv2dArgs& args);

/// Fig 7.15 (04_cached_halo.cu): the filter upload for that stage.
void convolution_cached_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius);
/// Fig 7.15: blocks the size of the output tile; halo cells come from global memory (L1/L2).
LaunchConfig convolution_cached_tiled_2D_const_mem(const Conv2dArgs& args);

/// Beyond the text (05_register_tiled.cu): the filter upload for that stage.
void convolution_2D_register_tiled_upload_filter(const float* host_filter, int radius);
/// Beyond the text: each thread computes a 4-wide patch of outputs, several rows tall, from a
/// shared-memory tile loaded with 16-byte loads (scalar loads when rows are not 16-byte aligned);
/// each block walks down several tiles, loading the next while computing one (register_tiling()).
LaunchConfig convolution_2D_register_tiled(const Conv2dArgs& args);

// ---- Tile geometry of the tiled stages --------------------------------------------------------

/// Stage 03's input tile when Conv2dArgs::tile is 0: the text's 32 x 32, the largest square block.
inline constexpr int DEFAULT_IN_TILE_DIM = 32;
/// The input tiles stage 03 is compiled for (IN_TILE_DIM is a compile-time constant, as in the text).
std::vector<int> tiled_in_tile_dims();
/// Why stage 03 cannot run with input tile @p in_tile_dim (0: the default) and @p radius on an image
/// @p height rows tall, as one sentence; empty if it can. Programs turn it into a usage error, the
/// launcher into std::invalid_argument.
std::string tiled_tile_error(int in_tile_dim, int radius, int height);

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

/// The tiling stage 05 uses for @p radius: the fastest of those measured at 8192 x 8192 on an H100
/// (see 05_register_tiled.cu). Up to r = 5 a thread adds all 2r+1 filter rows in one unrolled block;
/// from r = 6 on that block would not fit the instruction cache, so it adds 4 or 2 rows at a time.
/// Left to itself, the CUDA 13 compiler gave the kernel 72 to 96 registers. At r = 7 and 8 (80 and 72) a
/// minimum of 1 block per SM lets it take 96: r = 7 ran 0.6 to 1.5 points of the floor faster, r = 8
/// the same within a run's noise.
constexpr RegisterTiling register_tiling(int radius) {
  return radius <= 3   ? RegisterTiling{16, 8, 4, 2, filter_dim(radius), 0}
         : radius <= 5 ? RegisterTiling{16, 8, 4, 4, filter_dim(radius), 0}
         : radius == 6 ? RegisterTiling{16, 8, 4, 2, 4, 0}
                       : RegisterTiling{16, 8, 8, 1, 2, 1};
}

/// Stage 05 loads r columns of halo rounded up to whole float4s, so every tile row starts 16-byte aligned.
constexpr int register_tiled_pad(int radius) { return (radius + 3) / 4 * 4; }

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

/// The text's Fig 7.14 as a table: OP/B of the tiled kernel for input tiles 8..32 and the bound,
/// for the filter sizes the figure shows (and more).
struct Fig714Row {
  int radius;
  std::vector<double> op_per_byte;  ///< one per tile in fig_7_14_tiles()
  double bound;
};
std::vector<int> fig_7_14_tiles();
std::vector<Fig714Row> fig_7_14();

}  // namespace pmpp::ch07
