/// @file conv3d_tiled.hpp
/// @brief Exercise 7.5, the interface: the tiled convolution of section 7.4 (input-tile-sized blocks,
/// filter in constant memory), in three dimensions.
///
/// Shared by the starter code, the solution and the tests, so the two .cu files cannot drift apart.
/// Layout and filter order as in conv3d_basic.hpp: x fastest, `F[(k * d + j) * d + i]`, not flipped,
/// ghost cells zero.
#pragma once

namespace pmpp::ex07 {

/// Side of the cubic input tile, and of the block (one thread per input voxel). A cube of threads
/// grows fast: 8^3 = 512 threads, 10^3 = 1000 is the largest cube under the limit of 1024 threads
/// per block, and 16^3 = 4096 cannot launch at all. 8 keeps every warp on whole rows of 8 voxels.
inline constexpr int IN_TILE_DIM_3D = 8;
/// Largest radius: the output tile, IN_TILE_DIM_3D - 2r voxels on a side, keeps at least 2.
inline constexpr int MAX_RADIUS_3D = 3;

/// Copy the `(2r+1)^3` taps from host memory into the kernel's `__constant__` filter.
/// @pre `0 <= radius <= MAX_RADIUS_3D`; throws std::invalid_argument otherwise.
void convolution_tiled_3D_const_mem_upload_filter(const float* host_filter, int radius);

/// The 3D convolution with the filter last uploaded. Enqueues on the default stream, checks the
/// launch, does not synchronize.
/// @param[in]  in  device volume, nx * ny * nz, x fastest
/// @param[out] out device volume, nx * ny * nz
/// @pre `nx, ny, nz >= 1`, each within the grid's limits, `0 <= radius <= MAX_RADIUS_3D`;
///      throws std::invalid_argument otherwise.
void convolution_tiled_3D_const_mem(const float* in, float* out, int nx, int ny, int nz, int radius);

}  // namespace pmpp::ex07
