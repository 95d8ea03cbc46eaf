/// @file conv2d_output_tiled.hpp
/// @brief Exercise 7.3, the interface: the tiled 2D convolution of section 7.4 with the thread
/// organization the text leaves as an exercise, blocks as large as the *output* tile.
///
/// Shared by the starter code, the solution and the tests, so the two .cu files cannot drift apart.
/// Images are row-major, `width` columns by `height` rows; the filter is `(2r+1) x (2r+1)`, row-major,
/// not flipped: `out[row][col] = sum_{i,j} F[i][j] * in[row - r + i][col - r + j]`, ghost cells zero.
#pragma once

namespace pmpp::ex07 {

/// A block is OUT_TILE_DIM_2D x OUT_TILE_DIM_2D threads, one per output pixel of its tile:
/// 32 x 32 = 1024, the most a block may have.
inline constexpr int OUT_TILE_DIM_2D = 32;
/// Largest radius; the filter lives in `__constant__` memory sized for it.
inline constexpr int MAX_RADIUS_2D = 8;
/// Side of the largest input tile a block loads: its output tile plus a halo of r on every side.
inline constexpr int MAX_IN_TILE_DIM_2D = OUT_TILE_DIM_2D + 2 * MAX_RADIUS_2D;

/// Copy the `(2r+1)^2` taps from host memory into the kernel's `__constant__` filter.
/// @pre `0 <= radius <= MAX_RADIUS_2D`; throws std::invalid_argument otherwise.
void convolution_output_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius);

/// The 2D convolution above with the filter last uploaded. Enqueues on the default stream, checks the
/// launch, does not synchronize.
/// @param[in]  in  device image, width * height
/// @param[out] out device image, width * height
/// @pre `width, height >= 1`, `height <= 65535 * OUT_TILE_DIM_2D`, `0 <= radius <= MAX_RADIUS_2D`;
///      throws std::invalid_argument otherwise.
void convolution_output_tiled_2D_const_mem(const float* in, float* out, int width, int height, int radius);

}  // namespace pmpp::ex07
