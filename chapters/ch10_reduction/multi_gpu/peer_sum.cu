// =================================================================================================
// The last level of the sum across GPUs by peer reads: once each GPU's stage has reduced its shard to
// one float, every rank publishes that float in its own memory and reads every rank's.
//
// What changed from the library call (NCCL's all-reduce of the p partial sums): one thread per rank
// and p-1 loads of 8 bytes over the links. Each 8 bytes carry both the partial sum and the number of
// the call it belongs to, so a reader that sees the right number has the right value: no fence and no
// second flag, just relaxed loads and stores at system scope. Every rank adds the p floats in rank
// order, so every rank ends with the same bits.
// Limitation: every rank reads every other rank (p-1 reads each): right for the few GPUs of one
// machine, not for hundreds; and the ranks must reach each other's memory (peer access or CUDA IPC).
// Preconditions: slots zeroed once before the first call; every rank calls it as often as the others.
// =================================================================================================
#include <cuda/atomic>
#include <cuda_runtime.h>

#include "ch10_reduction/multi_gpu/peer_kernels.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
using SystemFlag = cuda::atomic_ref<Flag, cuda::thread_scope_system>;

//! [peer_sum_kernel]
// One thread per rank on this GPU (ranks sharing a GPU must run at once: each waits for the others).
// Two words per slot, by the call's parity: a fast rank may publish call + 1 while a slow one is still
// reading call, but not call + 2, which needs the slow rank's call + 1.
__global__ void PeerSumKernel(detail::PeerSlot* const* slots, int ranks, const int* ranks_here, std::uint64_t call) {
  const int me = ranks_here[blockIdx.x];
  const Flag mine = (call << 32) | __float_as_uint(slots[me]->partial);
  SystemFlag(slots[me]->published[call % 2]).store(mine, cuda::memory_order_relaxed);
  float total = 0.0f;
  for (int q = 0; q < ranks; ++q) {  // rank order on every rank: the same additions everywhere
    Flag seen = 0;
    do {
      seen = SystemFlag(slots[q]->published[call % 2]).load(cuda::memory_order_relaxed);
    } while ((seen >> 32) < call);
    total += __uint_as_float(static_cast<unsigned>(seen));
  }
  slots[me]->total = total;
}
//! [peer_sum_kernel]
}  // namespace

namespace detail {
void launch_peer_sum(PeerSlot* const* slots, int ranks, const int* ranks_here, int count, std::uint64_t call) {
  PeerSumKernel<<<static_cast<unsigned>(count), 1>>>(slots, ranks, ranks_here, call);
  CUDA_CHECK_LAUNCH();
}
}  // namespace detail

}  // namespace pmpp::ch10::multi_gpu
