/// @file conv3d_basic.hpp
/// @brief Exercise 7.4, the interface: the basic convolution of section 7.2, in three dimensions.
///
/// Shared by the starter code, the solution and the tests, so the two .cu files cannot drift apart.
///
/// Volumes are `nx` x `ny` x `nz` floats with x fastest: voxel (x, y, z) is `v[(z * ny + y) * nx + x]`
/// (indexed in 64 bits). The filter is `(2r+1)^3` taps in the same order, `F[(k * d + j) * d + i]`
/// with `d = 2r+1` and i along x, j along y, k along z; it is not flipped:
/// `out(x, y, z) = sum_{i,j,k} F[k][j][i] * in(x - r + i, y - r + j, z - r + k)`, ghost cells zero.
#pragma once

namespace pmpp::ex07 {

/// The block: 32 threads along x (one warp reads 32 consecutive voxels) by 4 by 4, 512 threads.
inline constexpr int BASIC_3D_BLOCK_X = 32;
inline constexpr int BASIC_3D_BLOCK_Y = 4;
inline constexpr int BASIC_3D_BLOCK_Z = 4;

/// The 3D convolution above, one thread per output voxel, filter read from global memory. Enqueues on
/// the default stream, checks the launch, does not synchronize.
/// @param[in]  in     device volume, nx * ny * nz
/// @param[in]  filter device array, (2r+1)^3 taps
/// @param[out] out    device volume, nx * ny * nz
/// @pre `nx, ny, nz >= 1`, `ny, nz <= 65535 * 4` (grid limits), `0 <= radius <= 16`;
///      throws std::invalid_argument otherwise.
void convolution_3D_basic(const float* in, const float* filter, float* out, int nx, int ny, int nz, int radius);

}  // namespace pmpp::ex07
