// =================================================================================================
// Stage 06 (beyond the text): one pass, float4 loads, warp shuffles, a grid sized to the GPU
//
// What it is:  a grid of exactly as many blocks as the GPU holds at once. Each thread walks the
//              input with a grid-wide stride, SINGLE_PASS_UNROLL 16-byte loads in flight at a
//              time, and combines what it read in a register; each warp combines its 32 values
//              with register shuffles, and each block its warps' values. The last block to finish
//              (it learns so from an atomic counter) combines the blocks' results and writes the
//              output.
// Changed:     coarsening sized to the machine, not to a constant (section 10.8's closing advice),
//              so no block waits for an SM; float4 loads, a quarter of the load instructions; the
//              tree in registers (__shfl_down_sync), with two barriers instead of ten; no atomic
//              on the output and no reset launch, so one launch in all and the same result bit for
//              bit on every run.
// Limitation:  every launch pays a fixed cost before it reads a byte, and the last block's combine
//              (a fence, an atomic, a read of the block results) waits for the slowest block:
//              below a few million floats these, not DRAM bandwidth, set the time.
// Preconditions: any n and any float alignment of input (up to 3 leading and 3 trailing elements
//              are read one by one); scratch of single_pass_scratch_bytes(), zeroed once.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "ch10_reduction/block_combine.cuh"
#include "ch10_reduction/counted_float.cuh"
#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/arch_limits.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Constants ----------------------------------------------------------------------------------

// Fill every SM with resident blocks: ask the compiler for few enough registers that as many threads
// fit as the architecture being compiled holds (2048 on an A100 or H100: at most 32 registers each).
constexpr unsigned int MIN_BLOCKS_PER_SM = min_blocks_to_fill_sm(SINGLE_PASS_BLOCK_DIM);

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
template <class T, class Operator>
__global__ void __launch_bounds__(SINGLE_PASS_BLOCK_DIM, MIN_BLOCKS_PER_SM)
    SinglePassReductionKernel(const T* __restrict__ input, T* __restrict__ output, std::size_t n,
                              T* __restrict__ block_results, unsigned int* __restrict__ blocks_done,
                              Operator op) {
  using T4 = typename Packed4<T>::type;  // float4 for float
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t grid_threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;

  // A float4 load needs a 16-byte-aligned address: floats before the first such address (the head)
  // and after the last whole float4 (the tail), at most 3 each, are read one by one.
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(input) / sizeof(float)) % 4;
  const std::size_t head = misaligned == 0 ? 0 : (4 - misaligned < n ? 4 - misaligned : n);
  const T4* body = reinterpret_cast<const T4*>(input + head);
  const std::size_t body_count = (n - head) / 4;
  const T* tail = input + head + 4 * body_count;
  const std::size_t tail_count = n - head - 4 * body_count;

  T value = Operator::identity();
  if (thread < head) value = op(value, input[thread]);
  if (thread < tail_count) value = op(value, tail[thread]);

  // The grid-stride loop. In each round the block's threads read consecutive float4s (a warp reads
  // 512 contiguous bytes), SINGLE_PASS_UNROLL of them per thread, all issued before any is used so
  // that the loads overlap. The bound is the same for the whole block, so its warps stay in step.
  const float id = Operator::identity();
  const T4 none{id, id, id, id};  // what a lane past the end contributes
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x; base < body_count;
       base += SINGLE_PASS_UNROLL * grid_threads) {
    T4 v[SINGLE_PASS_UNROLL];
#pragma unroll
    for (unsigned int u = 0; u < SINGLE_PASS_UNROLL; ++u) {
      const std::size_t j = base + u * grid_threads + threadIdx.x;
      v[u] = j < body_count ? body[j] : none;
    }
#pragma unroll
    for (unsigned int u = 0; u < SINGLE_PASS_UNROLL; ++u) {
      value = op(value, op(op(v[u].x, v[u].y), op(v[u].z, v[u].w)));
    }
  }

  value = block_reduce<SINGLE_PASS_BLOCK_DIM>(op, value);

  // A one-block grid (a short input) already holds the answer: no scratch, no counter, no second
  // round.
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *output = value;
    return;
  }

  combine_block_results<SINGLE_PASS_BLOCK_DIM>(op, value, output, block_results, blocks_done);
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

// Stage 06's scratch (ReduceArgs::scratch): the block counter at offset 0, then the block results in
// a 128-byte segment of their own.
namespace {
struct SinglePassScratch {
  unsigned int* blocks_done = nullptr;
  float* block_results = nullptr;
  explicit SinglePassScratch(const ReduceArgs& a) {
    if (a.scratch == nullptr) throw std::invalid_argument("stage 06 needs scratch: single_pass_scratch_bytes()");
    blocks_done = static_cast<unsigned int*>(a.scratch);
    block_results = reinterpret_cast<float*>(static_cast<char*>(a.scratch) + SINGLE_PASS_RESULTS_OFFSET);
  }
};
}  // namespace

//! [launcher]
ReductionLaunch single_pass_plan(std::size_t n, const GpuShape& gpu) {
  ReductionLaunch c;
  c.block = SINGLE_PASS_BLOCK_DIM;
  // As many blocks as fit on the GPU at once (fewer when n is small): no block waits for an SM.
  const std::size_t blocks_per_sm = gpu.max_threads_per_sm / SINGLE_PASS_BLOCK_DIM;
  const std::size_t resident = static_cast<std::size_t>(gpu.sm_count) * blocks_per_sm;
  const std::size_t float4s = ceil_div<std::size_t>(n, 4);
  const std::size_t per_block = SINGLE_PASS_BLOCK_DIM * SINGLE_PASS_UNROLL;  // float4s in one round
  const std::size_t wanted = ceil_div<std::size_t>(float4s, per_block);
  c.grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min(wanted, resident)));
  c.shared_bytes = sizeof(float) * (SINGLE_PASS_BLOCK_DIM / 32) + sizeof(bool);
  c.launches = 1;
  // Per thread: head and tail, then one add per float4 (after two inside it); then 5 + log2(WARPS)
  // shuffle levels per block; the last block: its strided loop over the results, and the shuffles.
  const std::size_t per_round = SINGLE_PASS_UNROLL * static_cast<std::size_t>(c.grid) * c.block;
  const std::size_t rounds = ceil_div<std::size_t>(float4s, per_round);
  c.rounding_depth =
      2 + rounds * SINGLE_PASS_UNROLL + 2 + 8 + ceil_div<std::size_t>(c.grid, c.block) + 8;
  return c;
}

std::size_t single_pass_scratch_bytes(std::size_t, Op) {
  const GpuShape gpu = current_gpu_shape();
  // Enough for the largest grid single_pass_plan makes on this GPU, whatever n is.
  const std::size_t blocks_per_sm = gpu.max_threads_per_sm / SINGLE_PASS_BLOCK_DIM;
  const std::size_t largest_grid = static_cast<std::size_t>(gpu.sm_count) * blocks_per_sm;
  return SINGLE_PASS_RESULTS_OFFSET + sizeof(float) * largest_grid;
}

ReductionLaunch single_pass_reduction(const ReduceArgs& a) {
  const SinglePassScratch scratch(a);
  const ReductionLaunch c = single_pass_plan(a.n, current_gpu_shape());
  with_operator(a.op, [&](auto op) {
    SinglePassReductionKernel<<<c.grid, c.block>>>(a.input, a.output, a.n, scratch.block_results,
                                                   scratch.blocks_done, op);
  });
  CUDA_CHECK_LAUNCH();
  return c;
}
//! [launcher]

// ---- Counting build (counted_float.cuh): the same kernel on CountedFloat ----------------------------

ReductionLaunch single_pass_reduction_counted(const ReduceArgs& a, const CountingBuffers& buffers) {
  const SinglePassScratch scratch(a);
  const ReductionLaunch c = single_pass_plan(a.n, current_gpu_shape());
  count_into(buffers);
  with_operator(a.op, [&](auto op) {
    SinglePassReductionKernel<<<c.grid, c.block>>>(counted(a.input), counted(a.output), a.n,
                                                   counted(scratch.block_results), scratch.blocks_done, op);
  });
  CUDA_CHECK_LAUNCH();
  return c;
}

}  // namespace pmpp::ch10
