// =================================================================================================
// Stage 01: the simple sum reduction kernel (PMPP 4th ed., section 10.3, Fig 10.6)
//
// What it is:  one block of n/2 threads reduces the input in place. Thread t owns input[2t] and is
//              the only thread that writes it ("owner computes"). In the iteration with stride s
//              (1, 2, 4, ...) the threads whose index is a multiple of s add input[2t + s] into their
//              own element; after the last iteration input[0] holds the sum (Fig 10.7).
// Changed:     first stage.
// Limitation:  the adding threads drift apart as the stride doubles. From the second iteration on
//              every warp has idle lanes (control divergence, section 10.4), and the lanes of a warp
//              touch elements 2s apart, so an access needs two 128-byte segments where one would do
//              (memory divergence, section 10.5). Stage 02 keeps the adding threads together. One
//              block only (n <= 2048), and the input is destroyed.
// Preconditions: n <= SINGLE_BLOCK_MAX_N; sum only; args.input is overwritten.
// Element type: every stage's kernel is a template on T. The program runs it on float; the counting
//              build runs the same kernel on CountedFloat, a float that counts what sections 10.4
//              and 10.5 count (counted_float.cuh).
// =================================================================================================
#include <cuda_runtime.h>

#include "ch10_reduction/counted_float.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10 {

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <class T>
__global__ void SimpleSumReductionKernel(T* input, T* output, unsigned int n) {
  const unsigned int i = 2 * threadIdx.x;
  for (unsigned int stride = 1; stride <= blockDim.x; stride *= 2) {
    // Owners of multiples of 2 * stride add. The text assumes n = 2 * blockDim.x exactly; for a
    // shorter input the partner may lie past the end, and then there is nothing to add.
    if (threadIdx.x % stride == 0 && i + stride < n) {
      input[i] += input[i + stride];
    }
    __syncthreads();  // the next iteration reads partial sums that other threads wrote in this one
  }
  if (threadIdx.x == 0) {
    *output = input[0];
  }
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

//! [launcher]
ReductionLaunch simple_plan(std::size_t n, const GpuShape&) {
  // One block, one thread per pair of elements: blockDim.x = n/2 rounded up to a power of two.
  return single_block_plan(n, 0);
}

ReductionLaunch simple_sum_reduction(const ReduceArgs& a) {
  require_single_block_sum(a, "01_simple");
  const ReductionLaunch c = simple_plan(a.n, GpuShape{});
  if (a.n == 0) {
    reset_to_identity(a.output, a.op);
    return c;
  }
  SimpleSumReductionKernel<<<c.grid, c.block>>>(a.input, a.output, static_cast<unsigned>(a.n));
  CUDA_CHECK_LAUNCH();
  return c;
}
//! [launcher]

// ---- Counting build (counted_float.cuh): the same kernel on CountedFloat ----------------------------

ReductionLaunch simple_sum_reduction_counted(const ReduceArgs& a, const CountingBuffers& buffers) {
  require_single_block_sum(a, "01_simple");
  const ReductionLaunch c = simple_plan(a.n, GpuShape{});
  if (c.grid == 0) return simple_sum_reduction(a);  // nothing to count: the identity is written
  count_into(buffers);
  SimpleSumReductionKernel<<<c.grid, c.block>>>(counted(a.input), counted(a.output), static_cast<unsigned>(a.n));
  CUDA_CHECK_LAUNCH();
  return c;
}

}  // namespace pmpp::ch10
