/// @file driver_api.hpp
/// @brief CUDA driver functions, looked up through the runtime at run time: neither side links libcuda,
/// so a test or worker still starts (and reports "no GPU") on a machine without a driver.
#pragma once

#include <cuda.h>  // types only
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace pmpp_grader {

/// The driver's @p name (e.g. "cuMemCreate") as a pointer of type @p Function; nullptr when the
/// driver lacks it or there is no driver.
template <class Function>
Function driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t status = cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t status = cudaGetDriverEntryPoint(name, &function, cudaEnableDefault, &found);
#endif
  if (status != cudaSuccess) cudaGetLastError();
  return status == cudaSuccess && found == cudaDriverEntryPointSuccess ? reinterpret_cast<Function>(function)
                                                                       : nullptr;
}

/// One piece of physical memory of an allocation and where it is mapped (see HandleMessage in
/// wire.hpp): once at @p offset, or, if @p repeated, at every multiple of its size that the other
/// pieces leave free.
struct Piece {
  CUmemGenericAllocationHandle handle;
  std::size_t offset;
  std::size_t bytes;
  bool repeated;
};

/// @p layout in order of offset, the repeated piece (if any) last.
inline std::vector<Piece> in_mapping_order(std::vector<Piece> layout) {
  std::sort(layout.begin(), layout.end(), [](const Piece& a, const Piece& b) {
    return a.repeated != b.repeated ? b.repeated : a.offset < b.offset;
  });
  return layout;
}

/// Whether @p pieces map every address of a range of @p bytes exactly once: pieces inside the range and
/// apart, at most one repeated piece, and then everything on whole multiples of its size.
inline bool laid_out(const std::vector<Piece>& pieces, std::size_t bytes) {
  const std::vector<Piece> layout = in_mapping_order(pieces);
  const bool repeats = !layout.empty() && layout.back().repeated;
  const std::size_t block = repeats ? layout.back().bytes : 1;
  if (block == 0 || bytes % block != 0 || (repeats && layout.size() > 1 && layout[layout.size() - 2].repeated))
    return false;
  std::size_t covered = 0;
  for (const Piece& piece : layout) {
    if (piece.repeated) break;
    if (piece.bytes == 0 || piece.offset < covered || piece.offset > bytes || piece.bytes > bytes - piece.offset ||
        piece.offset % block != 0 || piece.bytes % block != 0)
      return false;
    if (!repeats && piece.offset != covered) return false;  // nothing fills a gap
    covered = piece.offset + piece.bytes;
  }
  return repeats || covered == bytes;
}

/// Call @p map(handle, offset, size) for each mapping of @p pieces (laid_out) below @p end, in order of
/// address.
template <class Map>
void for_each_mapping(const std::vector<Piece>& pieces, std::size_t end, Map&& map) {
  const std::vector<Piece> layout = in_mapping_order(pieces);
  const Piece* repeated = !layout.empty() && layout.back().repeated ? &layout.back() : nullptr;
  std::size_t next = 0;
  const auto fill_to = [&](std::size_t until) {
    for (; repeated != nullptr && next < until; next += repeated->bytes) map(repeated->handle, next, repeated->bytes);
  };
  for (const Piece& piece : layout) {
    if (piece.repeated || piece.offset >= end) break;
    fill_to(piece.offset);
    map(piece.handle, piece.offset, piece.bytes);
    next = piece.offset + piece.bytes;
  }
  fill_to(end);
}

/// The driver's virtual memory functions the grader uses (all nullptr when there is no driver).
struct VirtualMemory {
  decltype(&cuMemCreate) create = driver_function<decltype(&cuMemCreate)>("cuMemCreate");
  decltype(&cuMemRelease) release = driver_function<decltype(&cuMemRelease)>("cuMemRelease");
  decltype(&cuMemAddressReserve) reserve = driver_function<decltype(&cuMemAddressReserve)>("cuMemAddressReserve");
  decltype(&cuMemAddressFree) free_range = driver_function<decltype(&cuMemAddressFree)>("cuMemAddressFree");
  decltype(&cuMemMap) map = driver_function<decltype(&cuMemMap)>("cuMemMap");
  decltype(&cuMemUnmap) unmap = driver_function<decltype(&cuMemUnmap)>("cuMemUnmap");
  decltype(&cuMemSetAccess) set_access = driver_function<decltype(&cuMemSetAccess)>("cuMemSetAccess");
  decltype(&cuMemGetAllocationGranularity) granularity =
      driver_function<decltype(&cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
  decltype(&cuMemExportToShareableHandle) export_handle =
      driver_function<decltype(&cuMemExportToShareableHandle)>("cuMemExportToShareableHandle");
  decltype(&cuMemImportFromShareableHandle) import_handle =
      driver_function<decltype(&cuMemImportFromShareableHandle)>("cuMemImportFromShareableHandle");
  decltype(&cuDeviceGet) device_handle = driver_function<decltype(&cuDeviceGet)>("cuDeviceGet");
  decltype(&cuDeviceGetAttribute) attribute = driver_function<decltype(&cuDeviceGetAttribute)>("cuDeviceGetAttribute");

  bool complete() const {
    return create && release && reserve && free_range && map && unmap && set_access && granularity &&
           export_handle && import_handle && device_handle && attribute;
  }
  /// Whether device @p device (a runtime ordinal) can map memory that travels as a file descriptor.
  bool shares_by_descriptor(int device) const {
    CUdevice handle{};
    int mapped = 0, descriptors = 0;
    return complete() && device_handle(&handle, device) == CUDA_SUCCESS &&
           attribute(&mapped, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, handle) == CUDA_SUCCESS &&
           attribute(&descriptors, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, handle) ==
               CUDA_SUCCESS &&
           mapped && descriptors;
  }
  /// Read-and-write access to a mapping for device @p device.
  static CUmemAccessDesc read_write(int device) {
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return access;
  }
  /// Map @p layout (checked with laid_out) at a new address range of @p bytes, readable and writable
  /// by @p device; 0 on failure (nothing left reserved or mapped).
  CUdeviceptr map_new(const std::vector<Piece>& layout, std::size_t bytes, int device, CUresult* status) const {
    *status = CUDA_ERROR_INVALID_VALUE;
    if (!laid_out(layout, bytes)) return 0;
    CUdeviceptr base = 0;
    *status = reserve(&base, bytes, 0, 0, 0);
    if (*status != CUDA_SUCCESS) return 0;
    std::size_t mapped = 0;  // bytes from base, in the order for_each_mapping goes
    for_each_mapping(layout, bytes, [&](CUmemGenericAllocationHandle handle, std::size_t offset, std::size_t size) {
      if (*status == CUDA_SUCCESS) *status = map(base + offset, size, 0, handle, 0);
      if (*status == CUDA_SUCCESS) mapped = offset + size;
    });
    if (*status == CUDA_SUCCESS) {
      const CUmemAccessDesc access = read_write(device);
      *status = set_access(base, bytes, &access, 1);
      if (*status == CUDA_SUCCESS) return base;
    }
    unmap_all(base, layout, mapped);
    free_range(base, bytes);
    return 0;
  }
  /// Undo map_new (the handles are the caller's to release).
  CUresult unmap_new(CUdeviceptr base, const std::vector<Piece>& layout, std::size_t bytes) const {
    const CUresult unmapped = unmap_all(base, layout, bytes);
    const CUresult freed = free_range(base, bytes);
    return unmapped != CUDA_SUCCESS ? unmapped : freed;
  }

 private:
  /// Unmap the mappings of @p layout that lie below offset @p end, one by one.
  CUresult unmap_all(CUdeviceptr base, const std::vector<Piece>& layout, std::size_t end) const {
    CUresult result = CUDA_SUCCESS;
    for_each_mapping(layout, end, [&](CUmemGenericAllocationHandle, std::size_t offset, std::size_t size) {
      if (offset + size <= end && unmap(base + offset, size) != CUDA_SUCCESS) result = CUDA_ERROR_INVALID_VALUE;
    });
    return result;
  }
};

/// The one lookup of this process.
inline const VirtualMemory& virtual_memory() {
  static const VirtualMemory functions;
  return functions;
}

}  // namespace pmpp_grader
