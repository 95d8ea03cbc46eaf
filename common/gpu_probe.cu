// What the runtime says about the GPU, and what this build holds (see pmpp/gpu_diagnosis.hpp).
// CMake compiles this file with the build's facts (common/CMakeLists.txt) and the same architectures
// as every kernel of the project, so whether the probe kernel loads tells whether theirs do.
#include <cuda_runtime.h>

#include "pmpp/gpu_diagnosis.hpp"

#if !defined(PMPP_BUILD_CUDA_ARCHITECTURES) || !defined(PMPP_BUILD_COMPILABLE_ARCHITECTURES) || \
    !defined(PMPP_BUILD_SOURCE_DIR) || !defined(PMPP_BUILD_BINARY_DIR)
#error "common/CMakeLists.txt passes the build's facts to this file"
#endif

namespace pmpp {

namespace {
// Never launched: cudaFuncGetAttributes loads it (the driver compiles PTX here if it must), and its
// attributes say which machine code the GPU runs.
__global__ void build_probe_kernel() {}

std::vector<int> numbers(const std::string& list) { return parse_architectures(list).ptx; }
}  // namespace

GpuFacts probe_gpu() {
  GpuFacts f;
  // Neither call needs a GPU: without a driver the first reports 0.
  if (cudaDriverGetVersion(&f.driver_version) != cudaSuccess) f.driver_version = 0;
  if (cudaRuntimeGetVersion(&f.runtime_version) != cudaSuccess) f.runtime_version = CUDART_VERSION;
  f.count_status = cudaGetDeviceCount(&f.device_count);
  if (f.count_status != cudaSuccess || f.device_count == 0) {
    cudaGetLastError();  // these errors are not sticky; clear them so that later checks start clean
    return f;
  }
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    f.name = prop.name;
    f.major = prop.major;
    f.minor = prop.minor;
  }
  cudaFuncAttributes attributes{};
  f.image_status = cudaFuncGetAttributes(&attributes, build_probe_kernel);
  if (f.image_status == cudaSuccess) {
    f.binary_version = attributes.binaryVersion;
    f.ptx_version = attributes.ptxVersion;
  }
  cudaGetLastError();
  return f;
}

const BuildFacts& this_build() {
  static const BuildFacts facts{parse_architectures(PMPP_BUILD_CUDA_ARCHITECTURES),
                                numbers(PMPP_BUILD_COMPILABLE_ARCHITECTURES), CUDART_VERSION, PMPP_BUILD_SOURCE_DIR,
                                PMPP_BUILD_BINARY_DIR};
  return facts;
}

}  // namespace pmpp
