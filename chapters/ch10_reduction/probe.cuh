/// @file probe.cuh
/// @brief Counting what the text counts, inside the kernels themselves.
///
/// Every stage's kernel takes a `Probe` template parameter and tells it, at each add and each global
/// memory access, which of its lanes take part. Two builds come out of the same kernel source:
/// - NoProbe: the calls are empty and compile to nothing; this is the build that is checked and timed;
/// - CountingProbe: each warp counts, with warp votes, its active lanes at the add (section 10.4) and
///   the distinct 128-byte segments its lanes touch per access (section 10.5), and, for --trace,
///   records which thread added which element at which step.
///
/// Probe calls are warp-collective: every lane of the warp must reach them (they sit outside the
/// `if` that selects the active threads, with the same condition passed as `active`).
///
/// The book's listings leave the probe out, so that each kernel reads as the text writes it: write a
/// probe call as one statement on a line of its own, `probe.name(...);`, and book/tools/make_listings.py
/// drops it (a test fails if any probe reaches a listing).
#pragma once

#include <cuda_runtime.h>

#include "ch10_reduction/reduction.hpp"

namespace pmpp::ch10 {

/// The build that runs: nothing is counted.
struct NoProbe {
  __device__ void combine(bool, long long, long long, unsigned = 1) {}
  template <class... Pointers>
  __device__ void global_access(bool, Pointers...) {}
};

/// The instrumented build (1D blocks).
class CountingProbe {
 public:
  explicit CountingProbe(const ProbeBuffers& buffers) : buffers_(buffers) {}

  /// This warp reaches an add; the lanes with @p active apply the operator @p ops times each to input
  /// data. @p dst and @p src name the operands for the trace.
  __device__ void combine(bool active, long long dst, long long src, unsigned ops = 1) {
    ++step_;
    const unsigned adding = __ballot_sync(present_lanes(), active);
    // The text's accounting: a warp with any lane adding consumes all 32 lanes, whatever the rest do.
    if (adding != 0 && lane() == 0) {
      atomicAdd(&slot().active_lanes, static_cast<unsigned long long>(__popc(adding)) * ops);
      atomicAdd(&slot().combine_warps, static_cast<unsigned long long>(ops));
    }
    if (active && buffers_.trace != nullptr) {
      const unsigned k = atomicAdd(buffers_.trace_count, 1u);
      if (k < buffers_.trace_capacity) buffers_.trace[k] = TraceRecord{step_, blockIdx.x, threadIdx.x, dst, src};
    }
  }

  /// This warp executes one global load or store per address; the lanes with @p active take part.
  template <class... Pointers>
  __device__ void global_access(bool active, Pointers... addresses) {
    (count_segments(active, addresses), ...);
  }

 private:
  __device__ static unsigned lane() { return threadIdx.x % 32; }
  /// The lanes this warp really has: a block of fewer than 32 threads has a partial warp.
  __device__ static unsigned present_lanes() {
    const unsigned count = min(32u, blockDim.x - (threadIdx.x - lane()));
    return count == 32 ? 0xffffffffu : (1u << count) - 1u;
  }
  __device__ ProbeCounters& slot() const { return buffers_.counters[blockIdx.x % kProbeSlots]; }

  __device__ void count_segments(bool active, const void* address) {
    const unsigned present = present_lanes();
    if (__ballot_sync(present, active) == 0) return;  // no lane accesses: no request (warp-uniform)
    // Lanes in the same 128-byte segment form one group; the lowest active lane of each group counts it.
    const unsigned long long segment = active ? reinterpret_cast<unsigned long long>(address) / 128 : ~0ull;
    const unsigned group = __match_any_sync(present, segment);
    const bool counts = active && static_cast<int>(lane()) == __ffs(group) - 1;
    const unsigned segments = __popc(__ballot_sync(present, counts));
    if (lane() == 0) {
      atomicAdd(&slot().global_segments, static_cast<unsigned long long>(segments));
      atomicAdd(&slot().global_accesses, 1ull);
    }
  }

  ProbeBuffers buffers_;
  unsigned step_ = 0;
};

/// Call @p body with the probe the launch asked for: CountingProbe if @p probe is set, else NoProbe.
template <class Body>
void with_probe(const ProbeBuffers* probe, Body&& body) {
  if (probe != nullptr)
    body(CountingProbe(*probe));
  else
    body(NoProbe{});
}

}  // namespace pmpp::ch10
