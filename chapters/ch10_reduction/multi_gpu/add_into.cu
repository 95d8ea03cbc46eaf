// =================================================================================================
// The copy-engine ring's reduce kernel: dst[i] += src[i], one piece of a reduce-scatter step at a time.
//
// What it adds to chapter 10: nothing new in the tree, which across GPUs is a chain of such adds, one
// per link; the point is what it costs. The piece has already been written into staging by the copy;
// this second pass reads it back with the receiver's copy (8 bytes) and writes the sum (4) for every
// 4 bytes that crossed the link, in the receiver's DRAM, beside the copies it overlaps.
// Limitation: that second pass, and a launch per piece; the fused ring (fused_ring.cu) adds as the
// bytes arrive instead.
// Preconditions: any count and any alignment; float4 loads where both pointers allow them.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
constexpr unsigned kBlock = 256;

//! [add_kernel]
// Vector: both pointers are 16-byte aligned, so each thread moves float4s; the last count % 4
// elements are added one by one.
template <bool Vector>
__global__ void AddIntoKernel(float* __restrict__ dst, const float* __restrict__ src, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t scalar_from = 0;
  if constexpr (Vector) {
    const std::size_t quads = count / 4;
    float4* d = reinterpret_cast<float4*>(dst);
    const float4* s = reinterpret_cast<const float4*>(src);
    for (std::size_t i = first; i < quads; i += stride) {
      float4 a = d[i];
      const float4 b = s[i];
      a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w;
      d[i] = a;
    }
    scalar_from = 4 * quads;
  }
  for (std::size_t i = scalar_from + first; i < count; i += stride) dst[i] += src[i];
}
//! [add_kernel]
}  // namespace

void add_into(float* dst, const float* src, std::size_t count, Stream stream) {
  if (count == 0) return;
  const GpuShape gpu = current_gpu_shape();
  // Enough blocks to keep every SM busy, no more: a grid-stride loop covers the rest.
  const std::size_t wanted = ceil_div<std::size_t>(ceil_div<std::size_t>(count, 4), kBlock);
  const std::size_t resident = static_cast<std::size_t>(gpu.sm_count) * (gpu.max_threads_per_sm / kBlock);
  const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min(wanted, resident)));
  const bool aligned = (reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) % 16 == 0;
  if (aligned)
    AddIntoKernel<true><<<grid, kBlock, 0, stream>>>(dst, src, count);
  else
    AddIntoKernel<false><<<grid, kBlock, 0, stream>>>(dst, src, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ch10::multi_gpu
