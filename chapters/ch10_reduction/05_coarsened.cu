// =================================================================================================
// Stage 05: coarsened reduction for any operator (PMPP 4th ed., sections 10.1 and 10.8, Fig 10.15)
//
// What it is:  each block owns a segment of COARSE_FACTOR * 2 * BLOCK_DIM elements. Every thread
//              first combines 2 * COARSE_FACTOR elements BLOCK_DIM apart on its own, in a register
//              (no barrier, no shared memory, every thread busy), and only then does the block run
//              the shared-memory tree once; one atomic per block accumulates the output.
// Changed:     the coarsening loop (Fig 10.14), and the operator is a template parameter: sum, max,
//              min or product with its identity (section 10.1). A block's elements are BLOCK_DIM
//              apart for each thread, so at every step the 32 lanes of a warp still read 32
//              consecutive floats. Max, min and product have no atomic instruction for floats: their
//              atomic update is a compare-and-swap loop (operators.cuh).
// Limitation:  the grid still grows with n (n / 16384 blocks), each paying a tree, barriers, a reset
//              launch before it and an atomic on one address; the tree idles most of its lanes.
//              Stage 06 sizes the grid to the GPU and finishes in one launch.
// Preconditions: any n; the output is reset to the identity by the launcher.
// =================================================================================================
#include <cuda_runtime.h>

#include "ch10_reduction/counted_float.cuh"
#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Kernel -------------------------------------------------------------------------------------

// The text's CoarsenedSumReductionKernel, with the operator as a template parameter.
//! [kernel]
template <class T, class Operator>
__global__ void CoarsenedReductionKernel(const T* input, T* output, std::size_t n, Operator op) {
  __shared__ T input_s[BLOCK_DIM];
  const std::size_t segment = COARSE_FACTOR * 2 * static_cast<std::size_t>(blockDim.x) * blockIdx.x;
  const std::size_t i = segment + threadIdx.x;
  const unsigned int t = threadIdx.x;
  T sum = i < n ? input[i] : Operator::identity();
#pragma unroll
  for (unsigned int tile = 1; tile < COARSE_FACTOR * 2; ++tile) {
    const std::size_t j = i + tile * BLOCK_DIM;  // BLOCK_DIM apart: a warp reads one segment
    if (j < n) {
      sum = op(sum, input[j]);
    }
  }
  input_s[t] = sum;
  for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // the slots read below were written by other threads in the previous step
    if (t < stride) {
      input_s[t] = op(input_s[t], input_s[t + stride]);
    }
  }
  if (t == 0) {
    atomic_combine(op, output, input_s[0]);
  }
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

//! [launcher]
ReductionLaunch coarsened_plan(std::size_t n, const GpuShape&) {
  ReductionLaunch c;
  // BLOCK_DIM threads, each combining 2 * COARSE_FACTOR elements: one block per coarsened segment.
  c.block = BLOCK_DIM;
  c.grid = static_cast<unsigned>(ceil_div<std::size_t>(n, COARSE_FACTOR * 2 * BLOCK_DIM));
  c.shared_bytes = sizeof(float) * BLOCK_DIM;
  c.launches = c.grid > 0 ? 2 : 1;  // the reset, then the kernel
  // 2 * COARSE_FACTOR - 1 serial adds, log2(BLOCK_DIM) tree levels, up to one atomic add per block.
  c.rounding_depth = (2 * COARSE_FACTOR - 1) + 10 + c.grid;
  return c;
}

ReductionLaunch coarsened_reduction(const ReduceArgs& a) {
  const ReductionLaunch c = coarsened_plan(a.n, GpuShape{});
  reset_to_identity(a.output, a.op);  // the blocks accumulate into the output
  if (c.grid == 0) return c;
  with_operator(a.op, [&](auto op) {
    CoarsenedReductionKernel<<<c.grid, c.block>>>(a.input, a.output, a.n, op);
  });
  CUDA_CHECK_LAUNCH();
  return c;
}
//! [launcher]

// ---- Counting build (counted_float.cuh): the same kernel on CountedFloat ----------------------------

ReductionLaunch coarsened_reduction_counted(const ReduceArgs& a, const CountingBuffers& buffers) {
  const ReductionLaunch c = coarsened_plan(a.n, GpuShape{});
  reset_to_identity(a.output, a.op);
  if (c.grid == 0) return c;
  count_into(buffers);
  with_operator(a.op, [&](auto op) {
    CoarsenedReductionKernel<<<c.grid, c.block>>>(counted(a.input), counted(a.output), a.n, op);
  });
  CUDA_CHECK_LAUNCH();
  return c;
}

}  // namespace pmpp::ch10
