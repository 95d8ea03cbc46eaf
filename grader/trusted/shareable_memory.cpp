// The wrapped cudaMalloc and cudaFree of the trusted test executables (see shareable_memory.hpp).
#include "shareable_memory.hpp"

#include <unistd.h>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>

#include "driver_api.hpp"

extern "C" cudaError_t __real_cudaMalloc(void** pointer, std::size_t bytes);
extern "C" cudaError_t __real_cudaFree(void* pointer);

namespace pmpp_grader {
namespace {

struct Allocation {
  SharedAllocation shared;
  CUmemGenericAllocationHandle handle;
  int descriptor = -1;  // exported on first use
};

std::mutex registry_mutex;
std::map<std::uintptr_t, Allocation> registry;  // by base address
std::uint64_t last_number = 0;
std::atomic<bool> ran_short{false};

/// The virtual memory functions, if device @p device can export memory as file descriptors.
const VirtualMemory* usable_on(int device) {
  const VirtualMemory& vm = virtual_memory();
  return vm.shares_by_descriptor(device) ? &vm : nullptr;
}

cudaError_t runtime_error(CUresult status) {
  return status == CUDA_ERROR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation : cudaErrorUnknown;
}

/// The registered allocation that holds @p address (the caller holds the mutex).
std::map<std::uintptr_t, Allocation>::iterator holding(std::uintptr_t address) {
  auto next = registry.upper_bound(address);
  if (next == registry.begin()) return registry.end();
  auto it = std::prev(next);
  return address < it->first + it->second.shared.bytes ? it : registry.end();
}

}  // namespace

std::optional<SharedAllocation> shared_allocation_of(const void* pointer) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  const auto it = holding(reinterpret_cast<std::uintptr_t>(pointer));
  if (it == registry.end()) return std::nullopt;
  return it->second.shared;
}

bool allocation_alive(std::uint64_t number) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (const auto& [base, allocation] : registry)
    if (allocation.shared.number == number) return true;
  return false;
}

int allocation_descriptor(std::uint64_t number, std::size_t* bytes) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (auto& [base, allocation] : registry) {
    if (allocation.shared.number != number) continue;
    if (allocation.descriptor < 0) {
      int fd = -1;
      if (virtual_memory().export_handle(&fd, allocation.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
          CUDA_SUCCESS)
        allocation.descriptor = fd;
    }
    *bytes = allocation.shared.bytes;
    return allocation.descriptor;
  }
  return -1;
}

bool allocation_ran_short() { return ran_short; }

}  // namespace pmpp_grader

using namespace pmpp_grader;

extern "C" cudaError_t __wrap_cudaMalloc(void** pointer, std::size_t bytes) {
  // The primary context, current (as a plain cudaMalloc would leave it), and the driver initialized.
  int device = 0;
  const VirtualMemory* vm = bytes > 0 && __real_cudaFree(nullptr) == cudaSuccess && cudaGetDevice(&device) == cudaSuccess
                                ? usable_on(device)
                                : nullptr;
  if (vm == nullptr) {
    const cudaError_t status = __real_cudaMalloc(pointer, bytes);
    if (status == cudaErrorMemoryAllocation) ran_short = true;
    return status;
  }
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = device;
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  std::size_t granularity = 0;
  CUresult status = vm->granularity(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (status != CUDA_SUCCESS || granularity == 0) return cudaErrorUnknown;
  if (bytes > SIZE_MAX - granularity) return cudaErrorMemoryAllocation;
  const std::size_t rounded = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle{};
  status = vm->create(&handle, rounded, &properties, 0);
  if (status == CUDA_SUCCESS) {
    const CUdeviceptr base = vm->map_new(handle, rounded, device, &status);
    if (base != 0) {
      std::lock_guard<std::mutex> lock(registry_mutex);
      registry[base] = {{++last_number, device, base, rounded}, handle};
      *pointer = reinterpret_cast<void*>(base);
      return cudaSuccess;
    }
    vm->release(handle);
  }
  if (status == CUDA_ERROR_OUT_OF_MEMORY) ran_short = true;
  return runtime_error(status);
}

extern "C" cudaError_t __wrap_cudaFree(void* pointer) {
  Allocation freed{};
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const auto it = registry.find(reinterpret_cast<std::uintptr_t>(pointer));
    if (it == registry.end()) return __real_cudaFree(pointer);
    freed = it->second;
    registry.erase(it);
  }
  // As cudaFree does: work still queued may use the memory.
  const cudaError_t synchronized = cudaDeviceSynchronize();
  const VirtualMemory& vm = virtual_memory();
  const std::size_t bytes = freed.shared.bytes;
  const CUdeviceptr base = freed.shared.base;
  const bool released = vm.unmap(base, bytes) == CUDA_SUCCESS && vm.free_range(base, bytes) == CUDA_SUCCESS &&
                        vm.release(freed.handle) == CUDA_SUCCESS;
  if (freed.descriptor >= 0) close(freed.descriptor);
  if (synchronized != cudaSuccess) return synchronized;
  return released ? cudaSuccess : cudaErrorInvalidValue;
}
