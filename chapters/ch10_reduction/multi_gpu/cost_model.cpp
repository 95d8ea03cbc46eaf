// The all-reduce's cost model: what each GPU sends, what the links allow, where each byte goes in
// DRAM, and the bandwidths as the NCCL performance tests define them, so that our numbers and theirs
// can be read side by side.
#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu {

//! [cost_model]
double ring_bytes_per_rank(double vector_bytes, int ranks) {
  // Reduce-scatter: p-1 steps of one segment (1/p of the vector) each; all-gather: the same again.
  return ranks > 1 ? 2.0 * (ranks - 1) / ranks * vector_bytes : 0.0;
}

double algorithm_bandwidth(double vector_bytes, double ms) { return ms > 0 ? vector_bytes / (ms * 1e-3) / 1e9 : 0.0; }

double bus_bandwidth(double algorithm_gbps, int ranks) {
  return ranks > 1 ? algorithm_gbps * 2.0 * (ranks - 1) / ranks : 0.0;
}

double predicted_ring_ms(double vector_bytes, int ranks, double link_gbps) {
  return link_gbps > 0 ? ring_bytes_per_rank(vector_bytes, ranks) / (link_gbps * 1e9) * 1e3 : 0.0;
}
//! [cost_model]

std::size_t planned_bytes_sent(const RingPlan& plan, int rank) {
  std::size_t floats = 0;
  for (int m = 0; m < plan.messages(); ++m)
    floats += plan.piece(plan.send_segment(rank, plan.step_of(m)), plan.piece_of(m)).size();
  return floats * sizeof(float);
}

//! [step_bytes]
StepBytes step_bytes(RingKind ring, bool reduces) {
  StepBytes b;
  b.link_out = b.link_in = 4;  // every GPU sends one float and receives one
  // All-gather: the piece is read where it is and written where it goes, in either ring.
  b.dram_read = 4;   // the piece this GPU passes on (read by its copy engine, or by its SMs)
  b.dram_write = 4;  // the piece it receives (written by the left neighbour's copy engine or SMs)
  if (!reduces) return b;
  if (ring == RingKind::copy_engine) {
    b.dram_read += 8;   // the add kernel reads the piece back from staging, and its own copy
    b.dram_write += 4;  // ... and writes the sum; the copy wrote the piece into staging first
  } else {
    b.dram_read += 4;   // the kernel reads its own copy beside the staged piece; the sum goes out
  }
  return b;
}
//! [step_bytes]

double all_reduce_dram_bytes_per_float(RingKind ring, int ranks) {
  if (ranks < 2) return 0.0;
  const double p = ranks;
  // Each step moves 1/p of the vector: p-1 steps of each phase.
  const double steps = (p - 1) * (step_bytes(ring, true).dram() + step_bytes(ring, false).dram());
  if (ring == RingKind::copy_engine) return steps / p;
  // The fused ring's first push reads no staging (4 less); the step that finishes a segment reads
  // staging too (4 more) and writes the sum twice, here and into the right neighbour (4 more).
  return (steps - 4 + 8) / p;
}

}  // namespace pmpp::ch10::multi_gpu
