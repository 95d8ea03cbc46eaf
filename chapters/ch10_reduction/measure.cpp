// Instrumented runs: launch a stage's counting build (probe.cuh) and read back what the GPU counted.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

namespace pmpp::ch10 {

namespace {
void require_instrumented(const Stage& stage) {
  if (stage.model == nullptr)
    throw std::invalid_argument(std::string(stage.id) + " has no instrumented build (it is not this chapter's code)");
}
}  // namespace

ResourceCounts measure_counts(const Stage& stage, ReduceArgs args, LaunchConfig* config) {
  require_instrumented(stage);
  DeviceBuffer<ProbeCounters> counters(kProbeSlots);
  CUDA_CHECK(cudaMemset(counters.data(), 0, counters.bytes()));
  const ProbeBuffers probe{counters.data(), nullptr, 0, nullptr};
  args.probe = &probe;
  const LaunchConfig launched = stage.launch(args);
  CUDA_CHECK(cudaDeviceSynchronize());
  if (config != nullptr) *config = launched;

  ResourceCounts total;
  for (const ProbeCounters& slot : counters.to_host()) {
    total.committed += slot.active_lanes;
    total.consumed += 32 * slot.combine_warps;
    total.requests += slot.global_segments;
    total.accesses += slot.global_accesses;
  }
  return total;
}

std::vector<TraceRecord> record_trace(const Stage& stage, ReduceArgs args, unsigned capacity) {
  require_instrumented(stage);
  DeviceBuffer<ProbeCounters> counters(kProbeSlots);
  DeviceBuffer<TraceRecord> records(capacity);
  DeviceBuffer<unsigned> count(1);
  CUDA_CHECK(cudaMemset(counters.data(), 0, counters.bytes()));
  CUDA_CHECK(cudaMemset(count.data(), 0, count.bytes()));
  const ProbeBuffers probe{counters.data(), records.data(), capacity, count.data()};
  args.probe = &probe;
  stage.launch(args);
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
