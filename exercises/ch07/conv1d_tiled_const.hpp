/// @file conv1d_tiled_const.hpp
/// @brief Exercise 7.2, the interface: the tiled convolution of section 7.4 (input-tile-sized blocks,
/// filter in constant memory), in one dimension.
///
/// Shared by the starter code, the solution and the tests, so the two .cu files cannot drift apart.
#pragma once

#include <cstdint>

namespace pmpp::ex07 {

/// Threads per block = elements of the input tile a block loads into shared memory.
inline constexpr int IN_TILE_DIM_1D = 256;
/// Largest radius: the filter's 2r+1 taps live in `__constant__` memory sized for it, and every block
/// still computes IN_TILE_DIM_1D - 2r >= 192 outputs.
inline constexpr int MAX_RADIUS_1D = 32;

/// Copy the 2r+1 taps of the filter from host memory into the kernel's `__constant__` array. Call it
/// before convolution_tiled_1D_const_mem(), and again whenever the filter changes.
/// @param[in] host_f host array of `2 * radius + 1` taps
/// @pre `0 <= radius <= MAX_RADIUS_1D`; throws std::invalid_argument otherwise.
void convolution_tiled_1D_const_mem_upload_filter(const float* host_f, int radius);

/// `y[i] = sum_{j=0}^{2r} f[j] * x[i - r + j]` for `0 <= i < n` (ghost cells are zero), with f the
/// filter last uploaded for this @p radius. Enqueues on the default stream, checks the launch, does
/// not synchronize.
/// @param[in]  x device array of @p n inputs
/// @param[out] y device array of @p n outputs
/// @pre `0 <= n` (n may exceed 2^31), `0 <= radius <= MAX_RADIUS_1D`; throws std::invalid_argument
///      otherwise.
void convolution_tiled_1D_const_mem(const float* x, float* y, std::int64_t n, int radius);

}  // namespace pmpp::ex07
