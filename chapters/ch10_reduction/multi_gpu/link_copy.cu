// =================================================================================================
// A copy by SM loads and stores, float4 at a time: how the programs measure what kernels get from a
// link (the fused ring's pushes into its neighbour are such stores), beside what the copy engines get.
// Either pointer may point into another GPU's memory. Preconditions: both 16-byte aligned (vectors
// from cudaMalloc); any count.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
constexpr unsigned kBlock = 512;
constexpr int kUnroll = 4;  // loads in flight per thread: a peer's memory is a link's latency away

__global__ void CopyKernel(float4* dst, const float4* src, std::size_t quads) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; first < quads;
       first += kUnroll * stride) {
    float4 v[kUnroll] = {};
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (first + u * stride < quads) v[u] = __ldcg(src + first + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (first + u * stride < quads) dst[first + u * stride] = v[u];
  }
}

__global__ void CopyTailKernel(float* dst, const float* src, std::size_t count) {
  if (threadIdx.x < count) dst[threadIdx.x] = src[threadIdx.x];
}
}  // namespace

void sm_copy(float* dst, const float* src, std::size_t count, Stream stream) {
  const std::size_t quads = count / 4;
  if (quads > 0) {
    // Two blocks per SM keep enough loads in flight for a link's latency; a grid-stride loop does the rest.
    const std::size_t resident = 2 * static_cast<std::size_t>(current_gpu_shape().sm_count);
    const std::size_t blocks = std::min(resident, ceil_div<std::size_t>(quads, kBlock));
    CopyKernel<<<static_cast<unsigned>(std::max<std::size_t>(1, blocks)), kBlock, 0, stream>>>(
        reinterpret_cast<float4*>(dst), reinterpret_cast<const float4*>(src), quads);
    CUDA_CHECK_LAUNCH();
  }
  if (count % 4 != 0) {
    CopyTailKernel<<<1, 4, 0, stream>>>(dst + 4 * quads, src + 4 * quads, count % 4);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace pmpp::ch10::multi_gpu
