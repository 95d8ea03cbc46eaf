// =================================================================================================
// Stage 06 (beyond the text): one pass, float4 loads, warp shuffles, a grid sized to the GPU
//
// What it is:  a grid of exactly as many blocks as the GPU holds at once. Each thread walks the input
//              with a grid-wide stride, SINGLE_PASS_UNROLL 16-byte loads in flight at a time, and
//              combines everything it read in a register. Each warp then combines its 32 values with
//              register shuffles, each block its warps' values, and thread 0 writes the block's
//              result to scratch. The last block to finish (it learns so from an atomic counter)
//              combines the block results and writes the output. A one-block grid (a short input)
//              writes its result as the output directly.
// Changed:     - coarsening sized to the machine, not to a constant (section 10.8's closing advice):
//                every block stays resident, so no block waits for an SM and no SM idles at the end;
//              - float4 loads: a quarter of the load instructions for the same bytes;
//              - the tree runs in registers (__shfl_down_sync), without shared memory and with two
//                barriers instead of ten;
//              - no atomic on the output and no reset launch: block results go to scratch and the
//                last block combines them in a fixed order, so the result is also the same bit for
//                bit from run to run. One launch in all, which matters most for mid-sized inputs.
// Limitation:  every launch pays a fixed cost before it reads a byte. Measured on an H100 (L2 evicted
//              by reading before each run): an empty kernel takes 0.0032 ms, and one read of 2^24
//              floats at peak DRAM 0.0200 ms, so no one-launch sum of 2^24 floats can take less than
//              0.0232 ms (1.23x cub::DeviceReduce::Sum's 0.0286 ms). This stage takes 0.0270 ms
//              (1.06x CUB). Of the 3.8 us it loses to the limit, about 1.8 us is the last block's
//              combine (a fence, an atomic and a read of the block results, one after the other: a
//              kernel without it took 0.0250 ms), and the rest is DRAM itself, which delivers 94% of
//              its peak even to a long stream, after a ramp-up of a microsecond or so. At 2^28 the
//              fixed cost is 1% of the time, and DRAM is the limit: 0.3383 against CUB's 0.3407 ms
//              (1.01x), 94.7% of the theoretical peak, and Nsight Compute finds DRAM busy 94.5% of the
//              time under this kernel and 95.0% under CUB's. Beating CUB by 4% there would take 95% to
//              98% of the theoretical peak (CUB's time varies from run to run), and no kernel reads that
//              fast: in a later run (this stage 0.3458 ms, CUB 0.3496 ms) a kernel that does nothing but
//              read the input (the "limit: read once" row) took 0.3429 ms, 93.4% of the peak, 1.02x CUB.
//              Variants measured on the H100, none faster at 2^24 or at 2^28 (all within 0.5% at 2^28
//              but the chunked ones, 3-6% slower): 256- and 512-thread blocks, 2 or 8 loads in flight,
//              one contiguous chunk per block, chunks handed out by an atomic counter, evict-first,
//              streaming, no-L1-allocate and 256-byte L2-prefetching loads, acquire-release atomics
//              instead of fences, two waves.
// Preconditions: any n and any float alignment of input (up to 3 leading and 3 trailing elements
//              are read one by one); scratch of single_pass_scratch_bytes(), zeroed once.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "ch10_reduction/block_combine.cuh"
#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/probe.cuh"
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
template <class Operator, class Probe>
__global__ void __launch_bounds__(SINGLE_PASS_BLOCK_DIM, MIN_BLOCKS_PER_SM)
    SinglePassReductionKernel(const float* __restrict__ input, float* __restrict__ output, std::size_t n,
                              float* __restrict__ block_results, unsigned int* __restrict__ blocks_done, Operator op,
                              Probe probe) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t grid_threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;

  // A float4 load needs a 16-byte-aligned address: floats before the first such address (the head)
  // and after the last whole float4 (the tail), at most 3 each, are read one by one.
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(input) / sizeof(float)) % 4;
  const std::size_t head = misaligned == 0 ? 0 : (4 - misaligned < n ? 4 - misaligned : n);
  const float4* body = reinterpret_cast<const float4*>(input + head);
  const std::size_t body_count = (n - head) / 4;
  const float* tail = input + head + 4 * body_count;
  const std::size_t tail_count = n - head - 4 * body_count;

  float value = Operator::identity();
  probe.combine(thread < head, 0, static_cast<long long>(thread));
  probe.global_access(thread < head, input + thread);
  if (thread < head) value = op(value, input[thread]);
  probe.combine(thread < tail_count, 0, static_cast<long long>(thread));
  probe.global_access(thread < tail_count, tail + thread);
  if (thread < tail_count) value = op(value, tail[thread]);

  // The grid-stride loop. In each round the block's threads read consecutive float4s (a warp reads
  // 512 contiguous bytes), SINGLE_PASS_UNROLL of them per thread, all issued before any is used so
  // that the loads overlap. The bound is the same for the whole block, so its warps stay in step.
  const float id = Operator::identity();
  const float4 none = make_float4(id, id, id, id);  // what a lane past the end contributes
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x; base < body_count;
       base += SINGLE_PASS_UNROLL * grid_threads) {
    float4 v[SINGLE_PASS_UNROLL];
#pragma unroll
    for (unsigned int u = 0; u < SINGLE_PASS_UNROLL; ++u) {
      const std::size_t j = base + u * grid_threads + threadIdx.x;
      probe.global_access(j < body_count, body + j);
      v[u] = j < body_count ? body[j] : none;
    }
#pragma unroll
    for (unsigned int u = 0; u < SINGLE_PASS_UNROLL; ++u) {
      const std::size_t j = base + u * grid_threads + threadIdx.x;
      probe.combine(j < body_count, 0, static_cast<long long>(j), 4);
      value = op(value, op(op(v[u].x, v[u].y), op(v[u].z, v[u].w)));
    }
  }

  value = block_reduce<SINGLE_PASS_BLOCK_DIM>(op, value, probe);

  // A one-block grid (a short input) already holds the answer: no scratch, no counter, no second round.
  if (gridDim.x == 1) {
    probe.global_access(threadIdx.x == 0, output);
    if (threadIdx.x == 0) *output = value;
    return;
  }

  combine_block_results<SINGLE_PASS_BLOCK_DIM>(op, value, output, block_results, blocks_done, probe);
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

//! [launcher]
LaunchConfig single_pass_plan(std::size_t n, const GpuShape& gpu) {
  LaunchConfig c;
  c.block = SINGLE_PASS_BLOCK_DIM;
  // As many blocks as fit on the GPU at once (fewer when n is small): no block waits for an SM.
  const std::size_t resident =
      static_cast<std::size_t>(gpu.sm_count) * static_cast<std::size_t>(gpu.max_threads_per_sm / SINGLE_PASS_BLOCK_DIM);
  const std::size_t float4s = ceil_div<std::size_t>(n, 4);
  const std::size_t wanted = ceil_div<std::size_t>(float4s, SINGLE_PASS_BLOCK_DIM * SINGLE_PASS_UNROLL);
  c.grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min(wanted, resident)));
  c.shared_bytes = sizeof(float) * (SINGLE_PASS_BLOCK_DIM / 32) + sizeof(bool);
  c.launches = 1;
  // Per thread: head and tail, then one add per float4 (after two inside it); then 5 + log2(WARPS)
  // shuffle levels per block; the last block: its strided loop over the results, and the shuffles again.
  const std::size_t per_round = SINGLE_PASS_UNROLL * static_cast<std::size_t>(c.grid) * c.block;
  const std::size_t rounds = ceil_div<std::size_t>(float4s, per_round);
  c.rounding_depth = 2 + rounds * SINGLE_PASS_UNROLL + 2 + 8 + ceil_div<std::size_t>(c.grid, c.block) + 8;
  return c;
}

std::size_t single_pass_scratch_bytes(std::size_t, Op) {
  const GpuShape gpu = current_gpu_shape();
  // Enough for the largest grid single_pass_plan makes on this GPU, whatever n is.
  return SINGLE_PASS_RESULTS_OFFSET + sizeof(float) * static_cast<std::size_t>(gpu.sm_count) *
                              static_cast<std::size_t>(gpu.max_threads_per_sm / SINGLE_PASS_BLOCK_DIM);
}

LaunchConfig single_pass_reduction(const ReduceArgs& a) {
  if (a.scratch == nullptr) throw std::invalid_argument("stage 06 needs scratch (single_pass_scratch_bytes)");
  const LaunchConfig c = single_pass_plan(a.n, current_gpu_shape());
  auto* blocks_done = static_cast<unsigned int*>(a.scratch);
  auto* block_results = reinterpret_cast<float*>(static_cast<char*>(a.scratch) + SINGLE_PASS_RESULTS_OFFSET);
  with_operator(a.op, [&](auto op) {
    with_probe(a.probe, [&](auto probe) {
      SinglePassReductionKernel<<<c.grid, c.block>>>(a.input, a.output, a.n, block_results, blocks_done, op, probe);
    });
  });
  CUDA_CHECK_LAUNCH();
  return c;
}
//! [launcher]

}  // namespace pmpp::ch10
