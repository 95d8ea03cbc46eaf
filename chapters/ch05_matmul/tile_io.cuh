/// @file tile_io.cuh
/// @brief The global-memory edge of the register-tiled stages (03, 04): four consecutive floats of a
/// row-major matrix, zeros past its edges, as one 16-byte load where the operands allow it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace pmpp::ch05 {

/// X[row][col..col+3] of a rows x cols row-major matrix; zeros outside it. VECTOR_IO: cols and col
/// are multiples of 4 and X is 16-byte aligned, so the four floats are all inside or all outside and
/// one float4 load moves them; otherwise each float is bounds-checked and loaded on its own.
template <bool VECTOR_IO>
__device__ __forceinline__ float4 load4(const float* __restrict__ X, int row, int rows, int col, int cols) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (row >= rows) return v;
  const float* p = X + static_cast<std::int64_t>(row) * cols + col;
  if constexpr (VECTOR_IO) {
    if (col < cols) v = *reinterpret_cast<const float4*>(p);
  } else {
    if (col + 0 < cols) v.x = p[0];
    if (col + 1 < cols) v.y = p[1];
    if (col + 2 < cols) v.z = p[2];
    if (col + 3 < cols) v.w = p[3];
  }
  return v;
}

/// Store v to C[row][col..col+3] of a rows x cols row-major matrix, dropping what falls outside it
/// (VECTOR_IO as for load4).
template <bool VECTOR_IO>
__device__ __forceinline__ void store4(float* __restrict__ C, int row, int rows, int col, int cols, float4 v) {
  if (row >= rows) return;
  float* p = C + static_cast<std::int64_t>(row) * cols + col;
  if constexpr (VECTOR_IO) {
    if (col < cols) *reinterpret_cast<float4*>(p) = v;
  } else {
    if (col + 0 < cols) p[0] = v.x;
    if (col + 1 < cols) p[1] = v.y;
    if (col + 2 < cols) p[2] = v.z;
    if (col + 3 < cols) p[3] = v.w;
  }
}

}  // namespace pmpp::ch05
