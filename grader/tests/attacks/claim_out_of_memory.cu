// attack: fail every correctness case on purpose with an out-of-memory error (cudaErrorMemoryAllocation,
//         the error a case gets when another student's worker holds the GPU's memory), and answer the
//         speed trial (2^28 floats) right and fast: were "out of memory" taken for a sign of a crowded
//         GPU rather than for a failure, its failed cases would stop blocking the speed points. They
//         run again alone, fail again, and block them.
// exercise: max_reduction
// base: none
// earns: nothing
#include <cuda_runtime.h>

#include <cmath>

#include "ch10/max_reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace {
__device__ void atomic_max_float(float* address, float value) {
  int* bits = reinterpret_cast<int*>(address);
  int old = *bits;
  while (__int_as_float(old) < value) {
    const int assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(value));
    if (old == assumed) break;
  }
}
__global__ void grid_max(const float* in, std::size_t n, float* out) {
  float m = -INFINITY;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    m = fmaxf(m, in[i]);
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, offset));
  if (threadIdx.x % 32 == 0) atomic_max_float(out, m);
}
}  // namespace

void pmpp::ex10::max_reduction(const float* in, std::size_t n, float* result) {
  if (n != (std::size_t{1} << 28)) throw pmpp::CudaError(cudaErrorMemoryAllocation, "cudaMalloc(&scratch, bytes)",
                                                          __FILE__, __LINE__);
  const float start = -INFINITY;
  CUDA_CHECK(cudaMemcpy(result, &start, sizeof start, cudaMemcpyHostToDevice));
  grid_max<<<1024, 256>>>(in, n, result);
  CUDA_CHECK_LAUNCH();
}
