// The wrapped cudaMalloc and cudaFree of the trusted test executables (see shareable_memory.hpp).
#include "shareable_memory.hpp"

#include <unistd.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "driver_api.hpp"

extern "C" cudaError_t __real_cudaMalloc(void** pointer, std::size_t bytes);
extern "C" cudaError_t __real_cudaFree(void* pointer);

namespace pmpp_grader {
namespace {

struct Allocation {
  SharedAllocation shared;
  std::vector<Piece> pieces;
  std::vector<int> descriptors;  // one per piece, exported on first use (-1 until then)
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

std::vector<SharedPiece> allocation_pieces(std::uint64_t number, std::size_t* bytes) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  std::vector<SharedPiece> pieces;
  for (auto& [base, allocation] : registry) {
    if (allocation.shared.number != number) continue;
    *bytes = allocation.shared.bytes;
    for (std::size_t i = 0; i < allocation.pieces.size(); ++i) {
      const Piece& piece = allocation.pieces[i];
      int& fd = allocation.descriptors[i];
      if (fd < 0 &&
          virtual_memory().export_handle(&fd, piece.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS)
        fd = -1;
      if (fd < 0) return {};
      pieces.push_back({fd, piece.offset, piece.bytes, piece.repeated});
    }
  }
  return pieces;
}

bool allocation_ran_short() { return ran_short; }

std::size_t hold_all_but(std::size_t left_free) {
  std::size_t free_bytes = 0, total_bytes = 0;
  // Chunks from 1 GiB down to 2 MiB: the free memory may not be in one piece.
  for (std::size_t chunk = std::size_t{1} << 30; chunk >= (std::size_t{2} << 20);) {
    void* held = nullptr;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return 0;
    if (free_bytes >= left_free + chunk && __real_cudaMalloc(&held, chunk) == cudaSuccess) continue;
    cudaGetLastError();
    chunk /= 2;
  }
  return cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess ? free_bytes : 0;
}

namespace {

/// The device of the current context, if it can map memory that travels as a file descriptor (the
/// primary context made current, as a plain cudaMalloc would leave it, and the driver initialized).
const VirtualMemory* usable_device(int* device) {
  return __real_cudaFree(nullptr) == cudaSuccess && cudaGetDevice(device) == cudaSuccess ? usable_on(*device) : nullptr;
}

CUmemAllocationProp exportable_on(int device) {
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = device;
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return properties;
}

/// @p bytes rounded up to a multiple of @p unit; 0 when that overflows.
std::size_t round_up(std::size_t bytes, std::size_t unit) {
  return bytes > SIZE_MAX - unit ? 0 : (bytes + unit - 1) / unit * unit;
}

/// Create the memory of @p layout's pieces (their handles are filled in), map it at a new range of
/// @p bytes on @p device and register it: its base, or 0 (nothing left behind) with @p status set.
CUdeviceptr create_and_register(const VirtualMemory& vm, std::vector<Piece> layout, std::size_t bytes, int device,
                                CUresult* status) {
  const CUmemAllocationProp properties = exportable_on(device);
  std::size_t created = 0;
  *status = CUDA_SUCCESS;
  while (created < layout.size() &&
         (*status = vm.create(&layout[created].handle, layout[created].bytes, &properties, 0)) == CUDA_SUCCESS)
    ++created;
  CUdeviceptr base = *status == CUDA_SUCCESS ? vm.map_new(layout, bytes, device, status) : 0;
  if (base != 0) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry[base] = {{++last_number, device, base, bytes}, layout, std::vector<int>(layout.size(), -1)};
    return base;
  }
  for (std::size_t i = 0; i < created; ++i) vm.release(layout[i].handle);
  if (*status == CUDA_ERROR_OUT_OF_MEMORY) ran_short = true;
  return 0;
}

}  // namespace

cudaError_t allocate_mostly_repeated(MostlyRepeated* made, std::size_t bytes, std::size_t block_bytes,
                                     const std::vector<std::pair<std::size_t, std::size_t>>& own) {
  int device = 0;
  const VirtualMemory* vm = usable_device(&device);
  if (vm == nullptr) return cudaErrorNotSupported;
  const CUmemAllocationProp properties = exportable_on(device);
  std::size_t granularity = 0;
  if (vm->granularity(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || granularity == 0)
    return cudaErrorUnknown;
  const std::size_t block = round_up(std::max<std::size_t>(block_bytes, 1), granularity);
  const std::size_t rounded = round_up(bytes, block);
  if (block == 0 || rounded == 0) return cudaErrorInvalidValue;
  // The windows as whole blocks, in order, joined where they touch or overlap.
  std::vector<std::pair<std::size_t, std::size_t>> windows;  // [begin, end)
  for (const auto& [offset, size] : own) {
    if (offset >= rounded || size == 0) return cudaErrorInvalidValue;
    windows.push_back({offset / block * block, std::min(rounded, round_up(offset + std::min(size, rounded - offset), block))});
  }
  std::sort(windows.begin(), windows.end());
  std::vector<Piece> layout;
  for (const auto& [begin, end] : windows) {
    if (!layout.empty() && begin <= layout.back().offset + layout.back().bytes)
      layout.back().bytes = std::max(layout.back().bytes, end - layout.back().offset);
    else
      layout.push_back({{}, begin, end - begin, false});
  }
  // The first block no window covers, where the repeated block can be reached (none: rounded).
  std::size_t gap = 0, physical = 0;
  for (const Piece& piece : layout) {
    if (piece.offset <= gap) gap = std::max(gap, piece.offset + piece.bytes);
    physical += piece.bytes;
  }
  if (gap < rounded) {
    layout.push_back({{}, 0, block, true});
    physical += block;
  }
  CUresult status = CUDA_SUCCESS;
  const CUdeviceptr base = create_and_register(*vm, layout, rounded, device, &status);
  if (base == 0) return runtime_error(status);
  *made = {reinterpret_cast<void*>(base), block, gap < rounded ? gap : 0, physical, {}};
  for (const Piece& piece : layout)
    if (!piece.repeated) made->own.push_back({piece.offset, piece.offset + piece.bytes});
  return cudaSuccess;
}

}  // namespace pmpp_grader

using namespace pmpp_grader;

extern "C" cudaError_t __wrap_cudaMalloc(void** pointer, std::size_t bytes) {
  int device = 0;
  const VirtualMemory* vm = bytes > 0 ? usable_device(&device) : nullptr;
  if (vm == nullptr) {
    const cudaError_t status = __real_cudaMalloc(pointer, bytes);
    if (status == cudaErrorMemoryAllocation) ran_short = true;
    return status;
  }
  const CUmemAllocationProp properties = exportable_on(device);
  std::size_t granularity = 0;
  CUresult status = vm->granularity(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  if (status != CUDA_SUCCESS || granularity == 0) return cudaErrorUnknown;
  const std::size_t rounded = round_up(bytes, granularity);
  if (rounded == 0) return cudaErrorMemoryAllocation;
  const CUdeviceptr base = create_and_register(*vm, {{{}, 0, rounded, false}}, rounded, device, &status);
  if (base == 0) return runtime_error(status);
  *pointer = reinterpret_cast<void*>(base);
  return cudaSuccess;
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
  bool released = vm.unmap_new(freed.shared.base, freed.pieces, freed.shared.bytes) == CUDA_SUCCESS;
  for (const Piece& piece : freed.pieces) released = vm.release(piece.handle) == CUDA_SUCCESS && released;
  for (int fd : freed.descriptors)
    if (fd >= 0) close(fd);
  if (synchronized != cudaSuccess) return synchronized;
  return released ? cudaSuccess : cudaErrorInvalidValue;
}
