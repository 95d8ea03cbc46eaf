/// @file block_combine.cuh
/// @brief The end of every one-launch reduction here (stage 06 and the matrix sum's outer_columns):
/// a block combines one value per thread with register shuffles, and the last block to finish
/// combines the blocks' results, so that one launch yields the whole answer. T is the element type
/// (float, or the counting build's CountedFloat).
#pragma once

#include <cuda_runtime.h>

namespace pmpp::ch10 {

//! [block_reduce]
/// Combine one value per thread of a BLOCK_DIM-thread block into thread 0: shuffles within each
/// warp, then warp 0 combines the warps' results the same way. Every thread of the block must call
/// it.
template <unsigned BLOCK_DIM, class Operator, class T>
__device__ T block_reduce(Operator op, T value) {
  constexpr unsigned WARPS = BLOCK_DIM / 32;
  static_assert(BLOCK_DIM % 32 == 0 && WARPS <= 32 && (WARPS & (WARPS - 1)) == 0,
                "the second shuffle round combines one value per warp within one warp");
  __shared__ T warp_results[WARPS];
  const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // Every lane adds, but only lanes below the offset hold values that are read again.
  for (unsigned int offset = 16; offset > 0; offset /= 2) {
    value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();  // warp 0 reads every warp's result
  if (warp == 0) {
    value = lane < WARPS ? warp_results[lane] : Operator::identity();
    for (unsigned int offset = WARPS / 2; offset > 0; offset /= 2) {
      value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    }
  }
  return value;
}
//! [block_reduce]

//! [combine_blocks]
/// After block_reduce: thread 0 holds this block's @p value. Write it to block_results, and let the
/// last block to finish (it learns so from the counter *blocks_done, which must start at 0) combine
/// all of them in a fixed order, write *output and reset the counter for the next launch. The same
/// result bit for bit from run to run, and no atomic on the output. Every thread of the block must
/// call it. Returns true in every thread of the last block, for a kernel that goes on from there.
template <unsigned BLOCK_DIM, class Operator, class T>
__device__ bool combine_block_results(Operator op, T value, T* __restrict__ output,
                                      T* __restrict__ block_results,
                                      unsigned int* __restrict__ blocks_done) {
  // Publish this block's result, then count the block as done. The fence orders the two: whoever
  // sees the count also sees the result.
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    block_results[blockIdx.x] = value;
    __threadfence();
    is_last = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();  // is_last is read by the whole block
  if (!is_last) return false;

  // The last block: every other block has counted itself done, so every result is in memory.
  // __ldcg reads them from L2, the level all SMs share, never from this SM's L1.
  __threadfence();
  value = Operator::identity();
  for (unsigned int first = 0; first < gridDim.x; first += BLOCK_DIM) {
    const unsigned int b = first + threadIdx.x;
    if (b < gridDim.x) value = op(value, __ldcg(block_results + b));
  }
  value = block_reduce<BLOCK_DIM>(op, value);
  if (threadIdx.x == 0) {
    *output = value;
    *blocks_done = 0;  // every block has counted: the counter is free for the next launch
  }
  return true;
}
//! [combine_blocks]

}  // namespace pmpp::ch10
