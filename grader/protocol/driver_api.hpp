/// @file driver_api.hpp
/// @brief CUDA driver functions, looked up through the runtime at run time: neither side links libcuda,
/// so a test or worker still starts (and reports "no GPU") on a machine without a driver.
#pragma once

#include <cuda.h>  // types only
#include <cuda_runtime_api.h>

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
  /// Map all @p bytes of @p handle at a new address range, readable and writable by @p device; 0 on
  /// failure (nothing left reserved or mapped).
  CUdeviceptr map_new(CUmemGenericAllocationHandle handle, std::size_t bytes, int device, CUresult* status) const {
    CUdeviceptr base = 0;
    *status = reserve(&base, bytes, 0, 0, 0);
    if (*status != CUDA_SUCCESS) return 0;
    *status = map(base, bytes, 0, handle, 0);
    if (*status == CUDA_SUCCESS) {
      const CUmemAccessDesc access = read_write(device);
      *status = set_access(base, bytes, &access, 1);
      if (*status == CUDA_SUCCESS) return base;
      unmap(base, bytes);
    }
    free_range(base, bytes);
    return 0;
  }
};

/// The one lookup of this process.
inline const VirtualMemory& virtual_memory() {
  static const VirtualMemory functions;
  return functions;
}

}  // namespace pmpp_grader
