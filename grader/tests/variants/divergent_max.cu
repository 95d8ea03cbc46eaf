// variant: only the first 16 lanes of each warp load and compare; the other 16 wait at every
//          instruction of the loop: about half the threads of a warp instruction are active
// exercise: max_reduction
// largest gap: active threads per warp instruction
#include <cuda_runtime.h>

#include <cmath>

#include "ch10/max_reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace {

__device__ unsigned ordered(float v) {
  const unsigned b = __float_as_uint(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ float unordered(unsigned b) { return __uint_as_float((b & 0x80000000u) ? (b & 0x7fffffffu) : ~b); }

__global__ void half_warp_max(const float* in, std::size_t n, unsigned* best) {
  const unsigned lane = threadIdx.x % 32;
  const std::size_t warp = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32;
  const std::size_t warps = std::size_t{gridDim.x} * blockDim.x / 32;
  float m = -INFINITY;
  if (lane < 16) {  // each working lane reads two consecutive halves of its warp's 32 floats
    for (std::size_t base = warp * 32; base < n; base += warps * 32) {
      if (base + lane < n) m = fmaxf(m, in[base + lane]);
      if (base + 16 + lane < n) m = fmaxf(m, in[base + 16 + lane]);
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, offset));
  if (lane == 0) atomicMax(best, ordered(m));
}

__global__ void to_float(const unsigned* best, float* result) { *result = unordered(*best); }

}  // namespace

void pmpp::ex10::max_reduction(const float* in, std::size_t n, float* result) {
  unsigned* best = nullptr;
  CUDA_CHECK(cudaMalloc(&best, sizeof(unsigned)));
  const unsigned minus_infinity = 0x007fffffu;  // ordered(-inf): an empty input gives -inf
  CUDA_CHECK(cudaMemcpy(best, &minus_infinity, sizeof minus_infinity, cudaMemcpyHostToDevice));
  if (n > 0) half_warp_max<<<1024, MAX_BLOCK_DIM>>>(in, n, best);
  to_float<<<1, 1>>>(best, result);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(best));
}
