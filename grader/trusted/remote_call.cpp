// Encoding a remote call's arguments on the trusted side (see remote_call.hpp).
#include "remote_call.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "shareable_memory.hpp"
#include "workers.hpp"

namespace pmpp_grader {

std::size_t arguments::filter_taps(int radius, int dims, int max_radius) {
  if (radius < 0 || radius > max_radius) return 0;
  std::size_t taps = 1;
  for (int d = 0; d < dims; ++d) taps *= static_cast<std::size_t>(2 * radius + 1);
  return taps;
}

void encode(Request& out, DeviceArgument argument) {
  const auto address = reinterpret_cast<std::uintptr_t>(argument.pointer);
  if (argument.pointer == nullptr) {
    out.frame.put(static_cast<std::uint8_t>(Tag::null_pointer));
    return;
  }
  if (const auto allocation = shared_allocation_of(argument.pointer)) {
    out.frame.put(static_cast<std::uint8_t>(Tag::device));
    out.frame.put<std::uint64_t>(allocation->number);
    out.frame.put<std::int32_t>(allocation->device);
    out.frame.put<std::uint64_t>(address - allocation->base);
    out.allocations.push_back(allocation->number);
    return;
  }
  cudaPointerAttributes attributes{};
  const bool device_memory = gpu_present() && cudaPointerGetAttributes(&attributes, argument.pointer) == cudaSuccess &&
                             attributes.type == cudaMemoryTypeDevice;
  if (gpu_present()) cudaGetLastError();  // a failed query leaves nothing behind
  if (device_memory)
    throw std::runtime_error("grader: this device memory cannot be passed to the worker: allocate it with cudaMalloc "
                             "(as DeviceBuffer and Framed do), on a GPU that can export memory as a file descriptor");
  // Host memory, or no GPU to ask: only the value, which means nothing in the worker (a function that
  // dereferences it fails there, and only there).
  out.frame.put(static_cast<std::uint8_t>(Tag::address));
  out.frame.put<std::uint64_t>(address);
}

void encode(Request& out, HostArgument argument) {
  if (argument.pointer == nullptr) {
    out.frame.put(static_cast<std::uint8_t>(Tag::null_pointer));
    return;
  }
  if (argument.bytes > kMaxFrame / 2) throw std::runtime_error("grader: a host array too large to send to the worker");
  out.frame.put(static_cast<std::uint8_t>(Tag::host));
  out.frame.put_bytes(argument.pointer, argument.bytes);
}

}  // namespace pmpp_grader
