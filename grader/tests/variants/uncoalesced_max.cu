// variant: each thread reads a contiguous chunk of 64 floats of its own: a warp's load instruction
//          touches 32 different sectors, 8 times the bytes a coalesced load fetches per request
// exercise: max_reduction
// largest gap: sectors per request
#include <cuda_runtime.h>

#include <cmath>

#include "ch10/max_reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace {

constexpr std::size_t kChunk = 64;

__device__ unsigned ordered(float v) {
  const unsigned b = __float_as_uint(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ float unordered(unsigned b) { return __uint_as_float((b & 0x80000000u) ? (b & 0x7fffffffu) : ~b); }

__global__ void chunked_max(const float* in, std::size_t n, unsigned* best) {
  const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  float m = -INFINITY;
  for (std::size_t start = thread * kChunk; start < n; start += std::size_t{gridDim.x} * blockDim.x * kChunk)
    for (std::size_t i = start; i < start + kChunk && i < n; ++i) m = fmaxf(m, in[i]);
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, offset));
  if (threadIdx.x % 32 == 0) atomicMax(best, ordered(m));
}

__global__ void to_float(const unsigned* best, float* result) { *result = unordered(*best); }

}  // namespace

void pmpp::ex10::max_reduction(const float* in, std::size_t n, float* result) {
  unsigned* best = nullptr;
  CUDA_CHECK(cudaMalloc(&best, sizeof(unsigned)));
  const unsigned minus_infinity = 0x007fffffu;  // ordered(-inf): an empty input gives -inf
  CUDA_CHECK(cudaMemcpy(best, &minus_infinity, sizeof minus_infinity, cudaMemcpyHostToDevice));
  if (n > 0) chunked_max<<<1024, MAX_BLOCK_DIM>>>(in, n, best);
  to_float<<<1, 1>>>(best, result);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(best));
}
