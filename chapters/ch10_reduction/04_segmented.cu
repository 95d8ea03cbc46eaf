// =================================================================================================
// Stage 04: segmented multiblock sum reduction with atomics (PMPP 4th ed., section 10.7, Fig 10.13)
//
// What it is:  the input is cut into segments of 2 x BLOCK_DIM elements, one per block. Each block
//              runs stage 03's shared-memory tree on its own segment, and thread 0 adds the block's
//              result to the output with one atomicAdd (Fig 10.12).
// Changed:     any n: segment = 2 * blockDim.x * blockIdx.x is where a block starts, and the tree
//              is unchanged because input_s is private to the block. The output is accumulated into,
//              so the launcher resets it to 0 first (one more tiny launch). Indices are 64-bit: the
//              segment start passes 2^32 at block 2^21.
// Limitation:  one thread per two elements: for large n most blocks wait for an SM, and each of them
//              pays for its own partly idle tree, barriers and atomic. Stage 05 coarsens the threads.
// Preconditions: sum only; elements past n count as 0 (the last segment may be partial).
// =================================================================================================
#include <cuda_runtime.h>

#include <stdexcept>

#include "ch10_reduction/counted_float.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <class T>
__global__ void SegmentedSumReductionKernel(const T* input, T* output, std::size_t n) {
  __shared__ T input_s[BLOCK_DIM];
  const std::size_t segment = 2 * static_cast<std::size_t>(blockDim.x) * blockIdx.x;
  const std::size_t i = segment + threadIdx.x;
  const unsigned int t = threadIdx.x;
  // The first add while loading, in a register. The last segment may hang over the end of the
  // input: a missing element counts as 0, the identity, and a missing partner means nothing to add.
  T sum = i < n ? input[i] : 0.0f;
  if (i + BLOCK_DIM < n) {
    sum += input[i + BLOCK_DIM];
  }
  input_s[t] = sum;
  for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // the slots read below were written by other threads in the previous step
    if (t < stride) {
      input_s[t] += input_s[t + stride];
    }
  }
  if (t == 0) {
    atomicAdd(output, input_s[0]);  // blocks finish in any order; the atomic serializes their adds
  }
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

//! [launcher]
ReductionLaunch segmented_plan(std::size_t n, const GpuShape&) {
  ReductionLaunch c;
  // BLOCK_DIM threads, each adding two elements: one block per 2 * BLOCK_DIM-element segment.
  c.block = BLOCK_DIM;
  c.grid = static_cast<unsigned>(ceil_div<std::size_t>(n, 2 * BLOCK_DIM));
  c.shared_bytes = sizeof(float) * BLOCK_DIM;
  c.launches = c.grid > 0 ? 2 : 1;  // the reset, then the kernel
  // One add while loading, log2(BLOCK_DIM) tree levels, then up to one atomic add per block.
  c.rounding_depth = 1 + 10 + c.grid;
  return c;
}

ReductionLaunch segmented_sum_reduction(const ReduceArgs& a) {
  require_sum(a, "04_segmented");
  const ReductionLaunch c = segmented_plan(a.n, GpuShape{});
  reset_to_identity(a.output, a.op);  // blocks accumulate into the output: it must start at 0
  if (c.grid == 0) return c;
  SegmentedSumReductionKernel<<<c.grid, c.block>>>(a.input, a.output, a.n);
  CUDA_CHECK_LAUNCH();
  return c;
}
//! [launcher]

// ---- Counting build (counted_float.cuh): the same kernel on CountedFloat ----------------------------

ReductionLaunch segmented_sum_reduction_counted(const ReduceArgs& a, const CountingBuffers& buffers) {
  require_sum(a, "04_segmented");
  const ReductionLaunch c = segmented_plan(a.n, GpuShape{});
  reset_to_identity(a.output, a.op);
  if (c.grid == 0) return c;
  count_into(buffers);
  SegmentedSumReductionKernel<<<c.grid, c.block>>>(counted(a.input), counted(a.output), a.n);
  CUDA_CHECK_LAUNCH();
  return c;
}

}  // namespace pmpp::ch10
