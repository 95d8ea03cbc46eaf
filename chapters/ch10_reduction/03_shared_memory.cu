// =================================================================================================
// Stage 03: the shared-memory sum reduction kernel (PMPP 4th ed., section 10.6, Fig 10.11)
//
// What it is:  one block of n/2 threads. Each thread adds its two elements, input[t] and
//              input[t + blockDim.x], while loading them, and stores the sum in shared memory; the
//              convergent tree of stage 02 then runs on the shared copy (Fig 10.10).
// Changed:     the first iteration happens during the load, so the loop starts at blockDim.x / 2 and
//              the barrier moves to the top of the loop (it must separate the stores to input_s from
//              the first reads of it). Global memory sees n loads and one store: N/32 + 1 requests
//              (9 at N = 256, against stage 02's 36), and the input is left unchanged.
// Limitation:  still one block: __syncthreads() cannot wait for threads of other blocks, so n is at
//              most 2 x 1024. Stage 04 gives each block its own segment.
// Preconditions: n <= SINGLE_BLOCK_MAX_N; sum only.
// =================================================================================================
#include <cuda_runtime.h>

#include "ch10_reduction/counted_float.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10 {

// ---- Constants ----------------------------------------------------------------------------------

// The text sizes input_s with a compile-time BLOCK_DIM; here the block is n/2 rounded up to a power of two,
// at most MAX_BLOCK_DIM, so the array is sized for the largest block.
constexpr unsigned int INPUT_S_SIZE = MAX_BLOCK_DIM;

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <class T>
__global__ void SharedMemorySumReductionKernel(const T* input, T* output, unsigned int n) {
  __shared__ T input_s[INPUT_S_SIZE];
  const unsigned int t = threadIdx.x;
  // The first iteration while loading. Element t exists (the block has fewer threads than n);
  // its partner t + blockDim.x may not, in an input shorter than 2 * blockDim.x.
  input_s[t] = input[t];
  if (t + blockDim.x < n) {
    input_s[t] += input[t + blockDim.x];
  }
  for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // the slots read below were written by other threads in the previous step
    if (t < stride) {
      input_s[t] += input_s[t + stride];
    }
  }
  if (t == 0) {
    *output = input_s[0];
  }
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

ReductionLaunch shared_memory_plan(std::size_t n, const GpuShape&) {
  // One block, one thread per pair of elements: blockDim.x = n/2 rounded up to a power of two.
  return single_block_plan(n, sizeof(float) * INPUT_S_SIZE);
}

ReductionLaunch shared_memory_sum_reduction(const ReduceArgs& a) {
  require_single_block_sum(a, "03_shared_memory");
  const ReductionLaunch c = shared_memory_plan(a.n, GpuShape{});
  if (a.n == 0) {
    reset_to_identity(a.output, a.op);
    return c;
  }
  SharedMemorySumReductionKernel<<<c.grid, c.block>>>(a.input, a.output, static_cast<unsigned>(a.n));
  CUDA_CHECK_LAUNCH();
  return c;
}

// ---- Counting build (counted_float.cuh): the same kernel on CountedFloat ----------------------------

ReductionLaunch shared_memory_sum_reduction_counted(const ReduceArgs& a, const CountingBuffers& buffers) {
  require_single_block_sum(a, "03_shared_memory");
  const ReductionLaunch c = shared_memory_plan(a.n, GpuShape{});
  if (c.grid == 0) return shared_memory_sum_reduction(a);  // nothing to count: the identity is written
  count_into(buffers);
  SharedMemorySumReductionKernel<<<c.grid, c.block>>>(counted(a.input), counted(a.output),
                                                      static_cast<unsigned>(a.n));
  CUDA_CHECK_LAUNCH();
  return c;
}

}  // namespace pmpp::ch10
