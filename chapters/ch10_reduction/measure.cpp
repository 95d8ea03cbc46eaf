// Counted runs: launch a stage's counting build (counted_float.cuh) and read back what the GPU counted.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

namespace pmpp::ch10 {

namespace {
void require_counting_build(const Stage& stage) {
  if (stage.launch_counted == nullptr)
    throw std::invalid_argument(std::string(stage.id) + " has no counting build (it is not this chapter's code)");
}

/// Buffers for one counted launch of @p args: the counters, zeroed, and what turns addresses into indices.
CountingBuffers counting_buffers(DeviceBuffer<Counters>& counters, const ReduceArgs& args) {
  CUDA_CHECK(cudaMemset(counters.data(), 0, counters.bytes()));
  CountingBuffers b;
  b.counters = counters.data();
  b.input = args.input;
  // A block's shared arrays start after the shared memory the runtime reserves per block (1 KiB on
  // recent GPUs), so a slot's index is its shared address minus that, over 4 bytes.
  int device = 0, reserved = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  b.shared_base = static_cast<unsigned>(reserved);
  return b;
}
}  // namespace

ResourceCounts measure_counts(const Stage& stage, const ReduceArgs& args, ReductionLaunch* launch) {
  require_counting_build(stage);
  DeviceBuffer<Counters> counters(kCounterSlots);
  const ReductionLaunch launched = stage.launch_counted(args, counting_buffers(counters, args));
  CUDA_CHECK(cudaDeviceSynchronize());
  if (launch != nullptr) *launch = launched;

  ResourceCounts total;
  for (const Counters& slot : counters.to_host()) {
    total.committed += slot.active_lanes;
    total.consumed += 32 * slot.combine_warps;
    total.requests += slot.segments;
    total.accesses += slot.accesses;
    total.loads += slot.loads;
    total.load_sectors += slot.load_sectors;
  }
  return total;
}

std::vector<TraceRecord> record_trace(const Stage& stage, const ReduceArgs& args, unsigned capacity) {
  require_counting_build(stage);
  constexpr unsigned kWarps = MAX_BLOCK_DIM / 32;  // the traceable stages run one block
  DeviceBuffer<Counters> counters(kCounterSlots);
  DeviceBuffer<TraceRecord> records(capacity);
  DeviceBuffer<unsigned> count(1), warp_steps(kWarps);
  CUDA_CHECK(cudaMemset(count.data(), 0, count.bytes()));
  CUDA_CHECK(cudaMemset(warp_steps.data(), 0, warp_steps.bytes()));
  CountingBuffers buffers = counting_buffers(counters, args);
  buffers.trace = records.data();
  buffers.trace_capacity = capacity;
  buffers.trace_count = count.data();
  buffers.warp_steps = warp_steps.data();
  buffers.warp_step_capacity = kWarps;
  stage.launch_counted(args, buffers);
  CUDA_CHECK(cudaDeviceSynchronize());

  const unsigned recorded = count.to_host()[0];
  if (recorded > capacity)
    throw std::runtime_error(std::string(stage.id) + " made " + std::to_string(recorded) +
                             " adds, more than the trace holds (" + std::to_string(capacity) + ")");
  std::vector<TraceRecord> trace(recorded);  // only what was written: the rest was never initialized
  if (recorded > 0)
    CUDA_CHECK(cudaMemcpy(trace.data(), records.data(), recorded * sizeof(TraceRecord), cudaMemcpyDeviceToHost));
  // The GPU appends records in whatever order its threads run; put them in the text's order.
  std::sort(trace.begin(), trace.end(), [](const TraceRecord& a, const TraceRecord& b) {
    if (a.step != b.step) return a.step < b.step;
    if (a.block != b.block) return a.block < b.block;
    return a.thread < b.thread;
  });
  return trace;
}

}  // namespace pmpp::ch10
