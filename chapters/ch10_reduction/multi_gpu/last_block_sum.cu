// =================================================================================================
// The sum across GPUs, ended in stage 06's last block: one kernel per GPU does the whole sum.
//
// What changed from stage 06 + peer reads: the peer-read ending is a second kernel on every GPU,
// launched after the reduction, so it waits for the reduction to drain and then pays a launch. Here the
// block that stage 06 already elects to finish (the last one, by its atomic counter) goes on: it
// stores the rank's partial sum, tagged with the call's number, into slot r of every rank's array
// (stores over the links), then one thread waits until its own array holds every rank's word of this
// call (loads of its own memory) and adds them in rank order, the same additions on every rank.
// Limitation: the last block spins until the slowest rank's last block has stored: a GPU that
// another rank's kernel shares, queued behind this one, would never get there, so one rank per GPU.
// Preconditions: input 16-byte aligned (shards start on 256-byte boundaries); the arrays and stage
// 06's scratch zeroed once; every rank calls as often as the others, with growing call numbers.
// =================================================================================================
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "ch10_reduction/block_combine.cuh"
#include "ch10_reduction/multi_gpu/last_block_sum.hpp"
#include "ch10_reduction/operators.cuh"
#include "pmpp/arch_limits.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
// As stage 06: few enough registers that a whole SM's worth of threads stays resident.
constexpr unsigned int MIN_BLOCKS_PER_SM = min_blocks_to_fill_sm(SINGLE_PASS_BLOCK_DIM);

using SystemWord = cuda::atomic_ref<Flag, cuda::thread_scope_system>;

//! [last_block_sum_kernel]
__global__ void __launch_bounds__(SINGLE_PASS_BLOCK_DIM, MIN_BLOCKS_PER_SM)
    LastBlockSumKernel(const float* __restrict__ input, std::size_t n, float* __restrict__ block_results,
                       unsigned int* __restrict__ blocks_done, Flag* const* __restrict__ arrays, int ranks,
                       int rank, std::uint64_t call, float* __restrict__ total) {
  // Stage 06's grid-stride loop on an aligned shard: float4 loads, SINGLE_PASS_UNROLL in flight.
  const std::size_t grid_threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const float4* body = reinterpret_cast<const float4*>(input);
  const std::size_t body_count = n / 4;
  float value = 0.0f;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread < n % 4) value = input[4 * body_count + thread];  // the tail: up to 3 floats
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x; base < body_count;
       base += SINGLE_PASS_UNROLL * grid_threads) {
    float4 v[SINGLE_PASS_UNROLL];
#pragma unroll
    for (unsigned int u = 0; u < SINGLE_PASS_UNROLL; ++u) {
      const std::size_t j = base + u * grid_threads + threadIdx.x;
      v[u] = j < body_count ? body[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (unsigned int u = 0; u < SINGLE_PASS_UNROLL; ++u) value += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  }
  value = block_reduce<SINGLE_PASS_BLOCK_DIM>(Sum{}, value);

  // Stage 06's ending elects the last block and leaves the rank's partial sum in rank_partial.
  __shared__ float rank_partial;
  if (!combine_block_results<SINGLE_PASS_BLOCK_DIM>(Sum{}, value, &rank_partial, block_results, blocks_done))
    return;
  __syncthreads();  // thread 0 wrote rank_partial

  // Into slot `rank` of every rank's array: one relaxed 64-bit store each, value and call together.
  const Flag word = partial_word(call, __float_as_uint(rank_partial));
  for (int q = static_cast<int>(threadIdx.x); q < ranks; q += static_cast<int>(blockDim.x))
    SystemWord(arrays[q][exchange_slot(call, ranks, rank)]).store(word, cuda::memory_order_relaxed);
  if (threadIdx.x != 0) return;

  // Wait for every rank's word in this GPU's own array, and add in rank order on every rank.
  Flag* const mine = arrays[rank];
  float sum = 0.0f;
  for (int q = 0; q < ranks; ++q) {
    Flag seen = 0;
    do {
      seen = SystemWord(mine[exchange_slot(call, ranks, q)]).load(cuda::memory_order_relaxed);
    } while (call_of(seen) < call);
    sum += __uint_as_float(value_bits_of(seen));
  }
  *total = sum;
}
//! [last_block_sum_kernel]
}  // namespace

namespace detail {
ReductionLaunch launch_last_block_sum(const float* input, std::size_t n, void* scratch, Flag* const* arrays,
                                      int ranks, int rank, std::uint64_t call, float* total) {
  if (reinterpret_cast<std::uintptr_t>(input) % 16 != 0)
    throw std::invalid_argument("the last-block sum reads its shard as float4: the input must be 16-byte aligned");
  // Stage 06's grid, and its scratch: the block counter, then the block results.
  const ReductionLaunch c = single_pass_plan(n, current_gpu_shape());
  auto* blocks_done = static_cast<unsigned int*>(scratch);
  auto* block_results = reinterpret_cast<float*>(static_cast<char*>(scratch) + SINGLE_PASS_RESULTS_OFFSET);
  LastBlockSumKernel<<<c.grid, c.block>>>(input, n, block_results, blocks_done, arrays, ranks, rank, call, total);
  CUDA_CHECK_LAUNCH();
  return c;
}
}  // namespace detail

}  // namespace pmpp::ch10::multi_gpu
