// Peer access: a GPU reaching another GPU's memory directly, over NVLink or PCIe, for copies and for
// kernels. It belongs to the process and is enabled once for each ordered pair of GPUs.
#include <cuda_runtime_api.h>

#include <mutex>
#include <set>
#include <utility>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

bool enable_peer_access(int from, int to) {
  if (from == to) return true;
  // Several rings, the sum across GPUs, or several ranks on each GPU meet the same pair again. Asking
  // twice fails (tolerated below, but compute-sanitizer reports every failed call), so the pairs
  // already enabled are remembered.
  static std::mutex mutex;
  static std::set<std::pair<int, int>> enabled;
  const std::lock_guard<std::mutex> lock(mutex);
  if (enabled.count({from, to}) != 0) return true;
  int can = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (!can) return false;
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  CUDA_CHECK(cudaSetDevice(from));
  const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();  // not an error here: something else in this process (NCCL, say) enabled it
  } else {
    CUDA_CHECK(status);
  }
  CUDA_CHECK(cudaSetDevice(current));
  enabled.insert({from, to});
  return true;
}

}  // namespace pmpp::ch10::multi_gpu
