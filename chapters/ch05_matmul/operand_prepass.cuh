/// @file operand_prepass.cuh
/// @brief The pre-pass of the wgmma stages (08, 09): copies of A and B laid out as TF32 `wgmma` reads
/// them, both K-major, in a workspace the stage keeps between calls.
///
/// TF32 `wgmma` reads both operands K-major: the values of one k-step of a row of A, or of a column of
/// B, adjacent in memory. Row-major A already is (unless its rows must be padded); row-major B must be
/// transposed. Each pre-pass kernel hands every element it produces to a *store* functor,
/// `store(at, x)`, which writes the element (or its parts) at offset @p at of the copy: stage 08 splits
/// it into big and small TF32 parts, stage 09 rounds it to TF32.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

namespace pmpp::ch05 {

/// A (rows x cols, row-major) copied to rows_p x cols_p elements (rows_p >= rows, cols_p >= cols),
/// zeros past A's edges. A grid-stride loop: any grid covers it.
template <class Store>
__global__ void RowsPrepassKernel(const float* __restrict__ A, int rows, int cols, std::int64_t rows_p,
                                  std::int64_t cols_p, Store store) {
  const std::int64_t total = rows_p * cols_p;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols_p, c = i % cols_p;
    store(i, r < rows && c < cols ? A[r * cols + c] : 0.0f);
  }
}

/// B (K x N, row-major) transposed to N_p x K_p elements (N_p >= N, K_p >= K), zeros past B's edges.
/// Each block moves a 32 x 32 block through shared memory, so that both the reads of B's rows and the
/// writes of its columns coalesce; launched on transpose_grid(N_p, K_p) blocks of TRANSPOSE_THREADS.
constexpr int TRANSPOSE_TILE = 32, TRANSPOSE_ROWS = 8;  // a block of 32 x 8 threads moves 32 x 32 floats
inline dim3 transpose_grid(std::int64_t N_p, std::int64_t K_p) {
  return dim3(static_cast<unsigned>((N_p + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE),
              static_cast<unsigned>((K_p + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE));
}
inline const dim3 TRANSPOSE_THREADS(TRANSPOSE_TILE, TRANSPOSE_ROWS);

template <class Store>
__global__ void TransposePrepassKernel(const float* __restrict__ B, int K, int N, std::int64_t N_p, std::int64_t K_p,
                                       Store store) {
  __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];  // +1: a column's 32 floats in 32 banks
  const std::int64_t k0 = std::int64_t{blockIdx.y} * TRANSPOSE_TILE, n0 = std::int64_t{blockIdx.x} * TRANSPOSE_TILE;
  for (int y = threadIdx.y; y < TRANSPOSE_TILE; y += TRANSPOSE_ROWS) {
    const std::int64_t k = k0 + y, n = n0 + threadIdx.x;
    tile[y][threadIdx.x] = k < K && n < N ? B[k * N + n] : 0.0f;
  }
  __syncthreads();
  for (int y = threadIdx.y; y < TRANSPOSE_TILE; y += TRANSPOSE_ROWS) {
    const std::int64_t n = n0 + y, k = k0 + threadIdx.x;
    if (n < N_p && k < K_p) store(n * K_p + k, tile[threadIdx.x][y]);
  }
}

/// The workspace a stage's pre-pass writes into, kept between calls: one allocation per device, grown
/// (the smaller one freed first) when a larger product needs more. @p launcher names the stage in the
/// error when the memory is not free.
inline float* prepass_workspace(std::size_t floats, const char* launcher) {
  static std::map<int, DeviceBuffer<float>> held;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  DeviceBuffer<float>& buffer = held[device];
  if (buffer.size() < floats) {
    buffer = DeviceBuffer<float>();
    try {
      buffer = DeviceBuffer<float>(floats);
    } catch (const std::exception&) {
      throw std::runtime_error(std::string(launcher) + ": the pre-pass's copies of A and B need " +
                               std::to_string(floats * sizeof(float) >> 20) +
                               " MB of device memory, which is not free");
    }
  }
  return buffer.data();
}

}  // namespace pmpp::ch05
