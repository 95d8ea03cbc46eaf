// What several launchers share: the reset of an accumulated output, and the GPU's shape.
#include <cuda_runtime.h>

#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10 {

namespace {
// One thread writes one float. cudaMemset could write 0 for the sum, but not -infinity for max:
// it sets bytes, and -infinity's four bytes differ.
template <class Operator>
__global__ void reset_to_identity_kernel(float* output) {
  *output = Operator::identity();
}
}  // namespace

void reset_to_identity(float* output, Op op) {
  with_operator(op, [&](auto o) { reset_to_identity_kernel<decltype(o)><<<1, 1>>>(output); });
  CUDA_CHECK_LAUNCH();
}

GpuShape current_gpu_shape() {
  // Launchers call this on every launch, inside timed regions: query once per device.
  static int cached_device = -1;
  static GpuShape cached;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device != cached_device) {
    CUDA_CHECK(cudaDeviceGetAttribute(&cached.sm_count, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&cached.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    cached_device = device;
  }
  return cached;
}

}  // namespace pmpp::ch10
