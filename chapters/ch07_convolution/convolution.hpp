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

namespace pmpp::ch07 {

/// Largest filter radius the tiled kernels are instantiated for (FILTER_RADIUS is a compile-time
/// constant in the text; we compile one kernel per radius 1..MAX_FILTER_RADIUS and pick at run time).
inline constexpr int MAX_FILTER_RADIUS = 8;

/// Side of a (2r+1) x (2r+1) filter.
constexpr int filter_dim(int radius) { return 2 * radius + 1; }

/// A grid or block shape, without pulling CUDA's dim3 into plain C++ files.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// What a launcher actually launched: the programs print it next to the time.
struct LaunchConfig {
  Dim3 grid, block;
  std::size_t shared_bytes = 0;
  std::string to_string() const;
};

/// One 2D convolution in device memory.
struct Conv2dArgs {
  const float* in = nullptr;      ///< device, width * height
  const float* filter = nullptr;  ///< device, (2r+1)^2; stages using constant memory ignore it
  float* out = nullptr;           ///< device, width * height
  int width = 0;
  int height = 0;
  int radius = 0;
  int tile = 0;                   ///< input-tile side for the tiled stages; 0 means the stage's default
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
