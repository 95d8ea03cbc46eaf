// Writes a rank's all-reduce inputs on its GPU, from the same function the CPU checker recomputes them
// with (all_reduce_input): a 4 GiB vector is filled in milliseconds instead of copied from the host.
#include <cuda_runtime.h>

#include <algorithm>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
__global__ void FillInputsKernel(float* data, std::size_t count, std::uint64_t seed, int rank, bool exact) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    data[i] = all_reduce_input(seed, rank, i, exact);
}
}  // namespace

void fill_inputs(float* data, std::size_t count, std::uint64_t seed, int rank, bool exact) {
  if (count == 0) return;
  constexpr unsigned kBlock = 256;
  // A grid-stride loop over a fixed grid: enough blocks to fill any GPU, whatever count is.
  const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(ceil_div<std::size_t>(count, kBlock), 4096));
  FillInputsKernel<<<grid, kBlock>>>(data, count, seed, rank, exact);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ch10::multi_gpu
