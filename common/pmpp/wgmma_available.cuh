/// @file wgmma_available.cuh
/// @brief Whether the current GPU runs this file's wgmma code: the one-line reason the wgmma stages
/// give where it does not, and the check their launchers make before they launch.
///
/// wgmma exists only in code compiled for sm_90a, and only compute capability 9.0 runs that. A build may
/// carry plain sm_90 code or PTX beside it; which one the driver loads decides. So each stage asks with
/// a kernel compiled alongside its own (this header's, in the stage's anonymous namespace), once per
/// device.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>

#include "pmpp/wgmma_sync.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/device_info.hpp"

namespace pmpp {
namespace {

/// 1 where this module's code for the running GPU was compiled for sm_90a, so has wgmma; else 0.
__global__ void HasWgmmaKernel(int* has) {
#ifdef PMPP_HAVE_WGMMA
  *has = 1;
#else
  *has = 0;
#endif
}

/// Why this file's wgmma kernels cannot run on the current GPU, in one line; "" when they can.
std::string wgmma_unavailable_here() {
  const int major = current_device_attribute(cudaDevAttrComputeCapabilityMajor);
  const int minor = current_device_attribute(cudaDevAttrComputeCapabilityMinor);
  if (major != 9 || minor != 0)
    return "needs compute capability 9.0 (Hopper's wgmma); this GPU has " + std::to_string(major) + "." +
           std::to_string(minor);
  static std::map<int, bool> has_wgmma;  // asked once per device: it takes a launch and a copy
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (has_wgmma.count(device) == 0) {
    DeviceBuffer<int> flag(1);
    HasWgmmaKernel<<<1, 1>>>(flag.data());
    CUDA_CHECK_LAUNCH();
    has_wgmma[device] = flag.to_host()[0] == 1;
  }
  if (!has_wgmma[device])
    return "needs compute capability 9.0 and code compiled for sm_90a (wgmma); this build runs other code on "
           "this GPU (build for it: CUDAARCHS=90)";
  return "";
}

/// Throw std::runtime_error, naming @p launcher, where this file's wgmma kernels cannot run here or the
/// GPU cannot give a block @p shared_bytes of shared memory.
void require_wgmma_launch(const char* launcher, std::size_t shared_bytes) {
  if (const std::string why = wgmma_unavailable_here(); !why.empty())
    throw std::runtime_error(std::string(launcher) + ": " + why);
  if (static_cast<std::size_t>(current_shared_per_block_optin()) < shared_bytes)
    throw std::runtime_error(std::string(launcher) + ": needs " + std::to_string(shared_bytes / 1024) +
                             " KB of shared memory per block; this GPU allows " +
                             std::to_string(current_shared_per_block_optin() / 1024) + " KB");
}

}  // namespace
}  // namespace pmpp
