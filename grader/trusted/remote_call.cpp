// Encoding a remote call's arguments on the trusted side (see remote_call.hpp).
#include "remote_call.hpp"

#include <cuda.h>  // types only: the driver function is looked up at run time, so no libcuda is linked
#include <cuda_runtime_api.h>

#include <stdexcept>

#include "workers.hpp"

namespace pmpp_grader {
namespace {

/// The allocation that holds @p pointer: cuMemGetAddressRange, through the runtime's entry-point
/// lookup (linking libcuda would stop the tests from even starting on a machine without a driver).
bool allocation_base(const void* pointer, CUdeviceptr* base) {
  using GetRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
  static const GetRange get_range = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t status =
        cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &function, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t status = cudaGetDriverEntryPoint("cuMemGetAddressRange", &function, cudaEnableDefault, &found);
#endif
    return status == cudaSuccess && found == cudaDriverEntryPointSuccess ? reinterpret_cast<GetRange>(function)
                                                                         : nullptr;
  }();
  std::size_t size = 0;
  return get_range != nullptr &&
         get_range(base, &size, static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer))) == CUDA_SUCCESS;
}

}  // namespace

std::size_t arguments::filter_taps(int radius, int dims, int max_radius) {
  if (radius < 0 || radius > max_radius) return 0;
  std::size_t taps = 1;
  for (int d = 0; d < dims; ++d) taps *= static_cast<std::size_t>(2 * radius + 1);
  return taps;
}

void encode(FrameWriter& out, DeviceArgument argument) {
  const auto address = reinterpret_cast<std::uintptr_t>(argument.pointer);
  if (argument.pointer == nullptr) {
    out.put(static_cast<std::uint8_t>(Tag::null_pointer));
    return;
  }
  cudaPointerAttributes attributes{};
  if (gpu_present() && cudaPointerGetAttributes(&attributes, argument.pointer) == cudaSuccess &&
      attributes.type == cudaMemoryTypeDevice) {
    CUdeviceptr base = 0;
    cudaIpcMemHandle_t handle{};
    if (!allocation_base(argument.pointer, &base) ||
        cudaIpcGetMemHandle(&handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(base))) != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error("grader: this device memory cannot be shared with the worker (allocate it with "
                               "cudaMalloc, as DeviceBuffer and Framed do)");
    }
    out.put(static_cast<std::uint8_t>(Tag::device));
    out.put_bytes(handle.reserved, kIpcHandleBytes);
    out.put<std::int32_t>(attributes.device);
    out.put<std::uint64_t>(address - static_cast<std::uintptr_t>(base));
    return;
  }
  if (gpu_present()) cudaGetLastError();  // a failed query leaves nothing behind
  // Host memory, or no GPU to ask: only the value, which means nothing in the worker (a function that
  // dereferences it fails there, and only there).
  out.put(static_cast<std::uint8_t>(Tag::address));
  out.put<std::uint64_t>(address);
}

void encode(FrameWriter& out, HostArgument argument) {
  if (argument.pointer == nullptr) {
    out.put(static_cast<std::uint8_t>(Tag::null_pointer));
    return;
  }
  if (argument.bytes > kMaxFrame / 2) throw std::runtime_error("grader: a host array too large to send to the worker");
  out.put(static_cast<std::uint8_t>(Tag::host));
  out.put_bytes(argument.pointer, argument.bytes);
}

}  // namespace pmpp_grader
