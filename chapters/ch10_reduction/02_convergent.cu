// =================================================================================================
// Stage 02: the convergent sum reduction kernel (PMPP 4th ed., sections 10.4-10.5, Fig 10.9)
//
// What it is:  one block of n/2 threads reduces the input in place. Thread t owns input[t]; the
//              stride starts at blockDim.x and halves, and only the threads below the stride add
//              input[t + stride] into their own element (Fig 10.8).
// Changed:     the owners are adjacent (i = threadIdx.x, not 2 * threadIdx.x) and the stride shrinks
//              instead of growing, so the adding threads stay packed at the low end of the block:
//              whole warps drop out together (no divergence until fewer than 32 threads add), and a
//              warp's 32 lanes read 32 consecutive floats, one 128-byte segment. At N = 256 the
//              consumed lanes drop from 864 (the text prints 736, see 01_simple) to 384, and the
//              loop's requests from 141 to 36.
// Limitation:  every iteration still reads and writes its partial sums in global memory, and the
//              input is destroyed. Stage 03 keeps the partial sums in shared memory.
// Preconditions: n <= SINGLE_BLOCK_MAX_N; sum only; args.input is overwritten.
// =================================================================================================
#include <cuda_runtime.h>

#include "ch10_reduction/counted_float.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10 {

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <class T>
__global__ void ConvergentSumReductionKernel(T* input, T* output, unsigned int n) {
  const unsigned int i = threadIdx.x;
  for (unsigned int stride = blockDim.x; stride >= 1; stride /= 2) {
    // The adding threads are 0 .. stride-1: whole warps go idle together. As in stage 01, a
    // partner past the end of a short input means there is nothing to add.
    if (threadIdx.x < stride && i + stride < n) {
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

ReductionLaunch convergent_plan(std::size_t n, const GpuShape&) {
  // One block, one thread per pair of elements: blockDim.x = n/2 rounded up to a power of two.
  return single_block_plan(n, 0);
}

ReductionLaunch convergent_sum_reduction(const ReduceArgs& a) {
  require_single_block_sum(a, "02_convergent");
  const ReductionLaunch c = convergent_plan(a.n, GpuShape{});
  if (a.n == 0) {
    reset_to_identity(a.output, a.op);
    return c;
  }
  ConvergentSumReductionKernel<<<c.grid, c.block>>>(a.input, a.output, static_cast<unsigned>(a.n));
  CUDA_CHECK_LAUNCH();
  return c;
}

// ---- Counting build (counted_float.cuh): the same kernel on CountedFloat ----------------------------

ReductionLaunch convergent_sum_reduction_counted(const ReduceArgs& a, const CountingBuffers& buffers) {
  require_single_block_sum(a, "02_convergent");
  const ReductionLaunch c = convergent_plan(a.n, GpuShape{});
  if (c.grid == 0) return convergent_sum_reduction(a);  // nothing to count: the identity is written
  count_into(buffers);
  ConvergentSumReductionKernel<<<c.grid, c.block>>>(counted(a.input), counted(a.output),
                                                    static_cast<unsigned>(a.n));
  CUDA_CHECK_LAUNCH();
  return c;
}

}  // namespace pmpp::ch10
