/// @file npp_call.hpp
/// @brief The NPP side of npp_support.hpp, for the .cpp files that call NPP (include it only under
/// PMPP_HAVE_NPP): a status check, and the stream context every NPP call of CUDA 13 takes.
#pragma once

#include <cuda_runtime_api.h>
#include <npp.h>

#include <stdexcept>
#include <string>

#include "pmpp/cuda_check.hpp"

namespace pmpp::ch07 {

/// Throw std::runtime_error naming @p call unless @p status is success. NPP's warnings (positive
/// codes) are failures too: each one means the call did not do exactly what was asked.
inline void npp_check(NppStatus status, const char* call) {
  if (status != NPP_SUCCESS)
    throw std::runtime_error(std::string("NPP: ") + call + " returned status " + std::to_string(status));
}
#define NPP_CHECK(call) ::pmpp::ch07::npp_check((call), #call)

/// The default stream on the current device, described the way NPP wants it (CUDA 13's NPP has only
/// the `_Ctx` entry points, which take the stream and device facts from the caller).
inline NppStreamContext npp_default_stream_context() {
  NppStreamContext ctx{};
  ctx.hStream = nullptr;  // the default stream, where every stage and timer of the chapter runs
  CUDA_CHECK(cudaGetDevice(&ctx.nCudaDeviceId));
  const int d = ctx.nCudaDeviceId;
  CUDA_CHECK(cudaDeviceGetAttribute(&ctx.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, d));
  CUDA_CHECK(cudaDeviceGetAttribute(&ctx.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, d));
  CUDA_CHECK(cudaDeviceGetAttribute(&ctx.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, d));
  int shared = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, d));
  ctx.nSharedMemPerBlock = static_cast<size_t>(shared);
  CUDA_CHECK(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, d));
  CUDA_CHECK(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, d));
  ctx.nStreamFlags = 0;  // the legacy default stream has no flags
  return ctx;
}

}  // namespace pmpp::ch07
