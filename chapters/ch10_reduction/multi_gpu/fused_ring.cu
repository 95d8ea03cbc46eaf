// =================================================================================================
// The fused ring all-reduce: one kernel per GPU runs every step of the ring, and its bytes cross the
// links as stores.
//
// What changed from the copy-engine ring (ring_schedule.cpp, add_into.cu): at each reduce-scatter
// step a block adds its own piece to the one its left neighbour pushed into this rank's staging and
// stores the sum straight into its right neighbour's staging (a peer pointer: SM stores over NVLink);
// the step that completes a segment stores it here and into the right neighbour's vector, and the
// all-gather passes it on the same way. The add happens on the way out, so no second kernel reads a
// piece back; every load is of the GPU's own memory, and a store, unlike a load, needs no answer to
// come back over the link. Neighbours say how far they are with flags in each other's memory (a
// release store and an acquire load at system scope): `ready` (a push has landed) and `freed` (a
// staging slot has been read and may be written again), so no host takes part between launch and end.
// Limitation: each step costs a flag's trip over the link besides its bytes, so small vectors are
// bound by the 2(p-1) steps; since blocks wait for their neighbours' blocks, every block of every rank
// must be resident at once (a cooperative launch of fused_ring_blocks).
// Preconditions: pieces start 16-byte aligned (the plan); each GPU reaches its neighbours' memory
// (peer access, or CUDA IPC across processes); all ranks launch the same plan, blocks and call number;
// flags zeroed once, staging of fused_staging_elements floats.
// =================================================================================================
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ch10_reduction/multi_gpu/peer_kernels.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
constexpr unsigned kBlock = 512;  // threads per block
constexpr int kUnroll = 4;        // float4 pairs each thread loads before it stores any

using SystemFlag = cuda::atomic_ref<Flag, cuda::thread_scope_system>;

// Thread 0 waits until a neighbour has set the flag; the barrier then holds every thread of the block
// until it has. The acquire load (system scope: the writer is another GPU) makes everything the writer
// did before its release store visible to thread 0, and the barrier passes that on to the block.
__device__ void wait_until(Flag* flag, Flag value) {
  if (threadIdx.x == 0)
    while (SystemFlag(*flag).load(cuda::memory_order_acquire) < value) {
    }
  __syncthreads();
}

// The barrier holds thread 0 until every thread of the block has done its loads and stores of the
// piece; the release store (system scope) then orders all of them, the other threads' included
// (release is cumulative over what happened before it), before the flag, for any GPU that acquires it.
// `ready` tells the right neighbour that the stores have landed; `freed` (null: none to give) tells
// the left neighbour that the loads of its staging are done, so that it may overwrite the slot.
__device__ void signal(Flag* ready, Flag ready_value, Flag* freed, Flag freed_value) {
  __syncthreads();
  if (threadIdx.x == 0) {
    SystemFlag(*ready).store(ready_value, cuda::memory_order_release);
    if (freed != nullptr) SystemFlag(*freed).store(freed_value, cuda::memory_order_release);
  }
}

__device__ float4 add(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

//! [fused_piece]
// One piece of one step, by one block: sum = own + staged (staged null: own alone), stored into `out`
// (the right neighbour's staging or vector) and, where `keep` is set, into `keep` (this rank's vector,
// when the sum is final). Every load is local and issued before any store, so that many are in
// flight; the stores go over the link and need no answer. Loads bypass L1 (__ldcg): the same
// addresses were written by another GPU since this SM last read them.
__device__ void fused_piece(const float* own, const float* staged, float* out, float* keep, std::size_t count) {
  const std::size_t quads = count / 4;
  const float4* own4 = reinterpret_cast<const float4*>(own);
  const float4* staged4 = reinterpret_cast<const float4*>(staged);
  for (std::size_t first = threadIdx.x; first < quads; first += kUnroll * blockDim.x) {
    float4 sum[kUnroll] = {}, theirs[kUnroll] = {};
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t i = first + u * blockDim.x;
      if (i < quads) {
        sum[u] = __ldcg(own4 + i);
        if (staged) theirs[u] = __ldcg(staged4 + i);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t i = first + u * blockDim.x;
      if (i < quads) {
        if (staged) sum[u] = add(sum[u], theirs[u]);
        reinterpret_cast<float4*>(out)[i] = sum[u];
        if (keep) reinterpret_cast<float4*>(keep)[i] = sum[u];
      }
    }
  }
  // Only the vector's last piece can end off a float4: its last count % 4 floats one by one.
  for (std::size_t i = 4 * quads + threadIdx.x; i < count; i += blockDim.x) {
    const float sum = staged ? __ldcg(own + i) + __ldcg(staged + i) : __ldcg(own + i);
    out[i] = sum;
    if (keep) keep[i] = sum;
  }
}
//! [fused_piece]

//! [fused_kernel]
// Row blockIdx.y of the grid is one rank (several ranks may share this GPU); block b of it takes
// pieces b, b + gridDim.x, ... of every step. Step t pushes segment send_segment(rank, t):
//   t = 0:          own piece                  -> right's staging, slot push_slot(0)
//   0 < t < p-1:    own + staging[t-1's slot]  -> right's staging, slot push_slot(t)
//   t = p-1:        own + staging[t-1's slot]  -> own vector and right's vector (the finished sum)
//   t >= p:         own (it has just arrived)  -> right's vector
// and the rank ends when the left neighbour's last push has landed in its vector.
__global__ void __launch_bounds__(kBlock) FusedRingKernel(const detail::FusedRankView* views, RingPlan plan,
                                                          std::uint64_t call) {
  const detail::FusedRankView me = views[blockIdx.y];
  const int p = plan.ranks, steps = plan.steps();
  for (int step = 0; step < steps; ++step) {
    const int segment = plan.send_segment(me.rank, step);
    const bool pushes_to_staging = step < p - 1, reads_staging = step > 0 && step <= p - 1;
    for (int c = blockIdx.x; c < plan.chunks; c += gridDim.x) {
      const Range piece = plan.piece(segment, c);
      const std::size_t in_segment = piece.begin - plan.segment(segment).begin;
      // What this step reads has landed: the left neighbour's push of step - 1 (into staging up to
      // step p-1, into this vector after).
      if (step > 0) wait_until(me.ready + c, progress_flag(call, step));
      // The slot this step writes is free: the right neighbour has read what went into it `slots`
      // steps ago (it did so at its step - slots + 1). Earlier calls' pushes were all read before
      // this kernel began: this rank's last call ended after a chain of flags through them.
      if (pushes_to_staging && step >= plan.slots)
        wait_until(me.freed + c, progress_flag(call, step - plan.slots + 1));
      const float* staged =
          reads_staging ? me.staging + plan.push_slot(step - 1) * me.slot_stride + in_segment : nullptr;
      float* out = pushes_to_staging ? me.right_staging + plan.push_slot(step) * me.slot_stride + in_segment
                                     : me.right_vector + piece.begin;
      fused_piece(me.vector + piece.begin, staged, out, step == p - 1 ? me.vector + piece.begin : nullptr,
                  piece.size());
      signal(me.right_ready + c, progress_flag(call, step + 1), reads_staging ? me.left_freed + c : nullptr,
             progress_flag(call, step));
    }
  }
  // End: the left neighbour's last push has landed here. Every remote write into this rank's memory
  // has then been waited for, and nothing reads it from elsewhere, so whatever follows on this stream
  // may use the vector and the staging.
  for (int c = blockIdx.x; c < plan.chunks; c += gridDim.x) wait_until(me.ready + c, progress_flag(call, steps));
}
//! [fused_kernel]
}  // namespace

int fused_ring_blocks(int device, int ranks_on_device) {
  int current = 0, per_sm = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, FusedRingKernel, kBlock, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaSetDevice(current));
  if (per_sm < 1) throw std::runtime_error("the fused ring's kernel cannot run on GPU " + std::to_string(device));
  return std::max(1, per_sm * sms / std::max(1, ranks_on_device));
}

namespace detail {
void launch_fused_ring(const FusedRankView* views, int ranks_here, int blocks, const RingPlan& plan,
                       std::uint64_t call) {
  // Cooperative: every block of the grid is resident at once, or the launch fails (instead of hanging
  // with some blocks waiting for blocks that never get an SM).
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(ranks_here));
  RingPlan by_value = plan;
  void* args[] = {&views, &by_value, &call};
  CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(FusedRingKernel), grid, dim3(kBlock), args,
                                         0, cudaStream_t{}));
}
}  // namespace detail

}  // namespace pmpp::ch10::multi_gpu
