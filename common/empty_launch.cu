// The do-nothing launch of pmpp/empty_launch.hpp.
#include <cuda_runtime.h>

#include "pmpp/cuda_check.hpp"
#include "pmpp/empty_launch.hpp"

namespace pmpp {
namespace {

__global__ void empty_kernel() {}

}  // namespace

void launch_empty_kernel() {
  empty_kernel<<<1, 1>>>();
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp
