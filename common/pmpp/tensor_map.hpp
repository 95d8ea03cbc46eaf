/// @file tensor_map.hpp
/// @brief The host side of the TMA (pmpp/tma.cuh): a tensor map describing a row-major matrix of floats
/// and the box one copy moves.
#pragma once

#include <cuda.h>  // CUtensorMap and the driver's tensor-map types (no driver library is linked)

#include <cstdint>

namespace pmpp {

/// How the TMA lays a box out in shared memory: row after row as in global memory, or with the 128-byte
/// swizzle (rows of 128 bytes; 16-byte chunk c of row r stored at chunk position c ^ (r % 8)), the
/// layout Hopper's warpgroup MMA reads without bank conflicts.
enum class BoxLayout { rows, swizzled_128b };

/// The matrix at @p base (device memory, 16-byte aligned) of @p rows x @p cols floats whose rows are
/// @p pitch_bytes apart (a multiple of 16), copied in boxes of @p box_cols x @p box_rows (each at most
/// 256; with the swizzle, box_cols * 4 at most 128). Elements outside the matrix read as zeros. The
/// driver is asked to fetch whole @p l2_promotion_bytes (64, 128 or 256) into L2 around each access.
/// Throws std::runtime_error with the driver's error where it refuses.
CUtensorMap float_tensor_map(const float* base, std::uint64_t cols, std::uint64_t rows, std::uint64_t pitch_bytes,
                             std::uint32_t box_cols, std::uint32_t box_rows, BoxLayout layout, int l2_promotion_bytes);

}  // namespace pmpp
