// Reading device memory and doing nothing with it: the L2 flush of KernelTimer (pmpp/l2_flush.hpp) and
// the measured DRAM limit of the memory-bound chapters (pmpp/read_limit.hpp) are the same kernel.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/l2_flush.hpp"
#include "pmpp/read_limit.hpp"

namespace pmpp {
namespace {

// A checksum no flush buffer produces (it repeats one byte, so every 16-byte checksum is 0): the store
// below almost never runs, but the compiler cannot know that, so it must keep every load.
constexpr unsigned int kImpossibleChecksum = 0x9E3779B9u;
// Loads each thread issues before it uses the first: enough bytes in flight to cover DRAM latency.
constexpr int kLoadsInFlight = 4;

__global__ void read_once_kernel(const uint4* __restrict__ data, std::size_t count,
                                 const unsigned char* __restrict__ tail, unsigned int tail_bytes, unsigned int* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned int checksum = 0;
  for (; i + (kLoadsInFlight - 1) * stride < count; i += kLoadsInFlight * stride) {
    uint4 v[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) checksum ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < count; i += stride) {
    const uint4 v = data[i];
    checksum ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // The last bytes past the whole 16-byte loads (up to 15), by the thread that read the first 16 bytes,
  // each in its place in a little-endian word.
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (unsigned int b = 0; b < tail_bytes; ++b) checksum ^= static_cast<unsigned int>(tail[b]) << (8 * (b % 4));
  if (checksum == kImpossibleChecksum) *sink = checksum;
}

}  // namespace

void launch_read_once(const void* data, std::size_t bytes, unsigned int* sink, unsigned int grid, unsigned int block) {
  if (reinterpret_cast<std::uintptr_t>(data) % sizeof(uint4) != 0)
    throw std::invalid_argument("launch_read_once: the data must start on a 16-byte boundary");
  if (grid == 0 || block < 16)
    throw std::invalid_argument("launch_read_once: a grid of at least 1 block of at least 16 threads, got " +
                                std::to_string(grid) + " x " + std::to_string(block));
  const std::size_t count = bytes / sizeof(uint4);
  const auto* tail = static_cast<const unsigned char*>(data) + count * sizeof(uint4);
  read_once_kernel<<<grid, block>>>(static_cast<const uint4*>(data), count, tail,
                                    static_cast<unsigned int>(bytes % sizeof(uint4)), sink);
  CUDA_CHECK_LAUNCH();
}

void flush_l2_by_reading(const void* buffer, std::size_t bytes, unsigned int* sink) {
  launch_read_once(buffer, bytes, sink, 1024, 256);
}

ReadLimit time_read_once(const void* data, std::size_t bytes, KernelTimer& timer) {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  DeviceBuffer<unsigned int> sink(1);
  ReadLimit best;
  // A few launch shapes, the fastest kept: no single one is best on every GPU and size.
  struct Shape {
    unsigned int blocks_per_sm, block;
  };
  for (const Shape shape : {Shape{4, 256}, Shape{8, 256}, Shape{2, 1024}}) {
    const unsigned int grid = static_cast<unsigned int>(sms) * shape.blocks_per_sm;
    const Timing t = timer.time([&] { launch_read_once(data, bytes, sink.data(), grid, shape.block); });
    if (best.grid == 0 || t.median_ms < best.timing.median_ms) best = ReadLimit{t, grid, shape.block};
  }
  return best;
}

}  // namespace pmpp
