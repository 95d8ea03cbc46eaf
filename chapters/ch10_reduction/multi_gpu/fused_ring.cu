// =================================================================================================
// The fused ring all-reduce: one kernel per GPU runs every step of the ring.
//
// What changed from the copy-engine ring (ring_schedule.cpp, add_into.cu): at each step a block reads
// its left neighbour's piece straight from that GPU's memory (a peer pointer: loads over NVLink), adds
// its own copy and writes the sum into its own vector, where the right neighbour reads it at the next
// step. Nothing lands in staging to be read back by a second kernel, so each float that crosses the
// link in the reduce-scatter costs 12 bytes of DRAM traffic instead of 20; and neighbours tell each
// other how far they are with flags in each other's memory (a release store and an acquire load at
// system scope), so no host takes part between the launch and the end.
// Limitation: each step costs a flag's trip over the link (about a microsecond) besides its bytes, so
// small vectors are bound by the 2(p-1) steps; and since blocks wait for their neighbours' blocks,
// every block of every rank must be resident at once (a cooperative launch of fused_ring_blocks).
// Preconditions: pieces start 16-byte aligned (the plan); each GPU reaches its neighbours' memory
// (peer access, or CUDA IPC across processes); all ranks launch the same plan, blocks and call number.
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
constexpr int kUnroll = 4;        // float4 loads each thread has in flight: the link's latency needs many

using SystemFlag = cuda::atomic_ref<Flag, cuda::thread_scope_system>;

// Thread 0 waits until a neighbour has set the flag; the barrier then holds every thread of the block
// until it has, so that none reads the neighbour's piece early.
__device__ void wait_until(Flag* flag, Flag value) {
  if (threadIdx.x == 0)
    while (SystemFlag(*flag).load(cuda::memory_order_acquire) < value) {
    }
  __syncthreads();
}

// The barrier holds thread 0 until every thread has written its part of the piece; the release store
// then makes those writes visible to any GPU that sees the flag.
__device__ void signal(Flag* flag, Flag value) {
  __syncthreads();
  if (threadIdx.x == 0) SystemFlag(*flag).store(value, cuda::memory_order_release);
}

__device__ float4 add(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

//! [fused_piece]
// One piece of one step, by one block: own = own + left's (reduce-scatter) or own = left's (all-gather).
// The neighbour's floats are read with __ldcg (cached in L2 only, not L1): the same address holds a
// partial sum at one step and the finished sum at a later one.
__device__ void fused_piece(float* own, const float* left, std::size_t count, bool reduces) {
  const std::size_t quads = count / 4;
  float4* own4 = reinterpret_cast<float4*>(own);
  const float4* left4 = reinterpret_cast<const float4*>(left);
  for (std::size_t first = threadIdx.x; first < quads; first += kUnroll * blockDim.x) {
    float4 theirs[kUnroll] = {}, mine[kUnroll] = {};
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {  // every load issued before any is used
      const std::size_t i = first + u * blockDim.x;
      if (i < quads) {
        theirs[u] = __ldcg(left4 + i);
        if (reduces) mine[u] = own4[i];
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t i = first + u * blockDim.x;
      if (i < quads) own4[i] = reduces ? add(mine[u], theirs[u]) : theirs[u];
    }
  }
  // Only the vector's last piece can end off a float4: its last count % 4 floats one by one.
  for (std::size_t i = 4 * quads + threadIdx.x; i < count; i += blockDim.x)
    own[i] = reduces ? own[i] + __ldcg(left + i) : __ldcg(left + i);
}
//! [fused_piece]

//! [fused_kernel]
// Row blockIdx.y of the grid is one rank (several ranks may share this GPU); block b of it takes
// pieces b, b + gridDim.x, ... of every step.
__global__ void __launch_bounds__(kBlock) FusedRingKernel(const detail::FusedRankView* views, RingPlan plan,
                                                          std::uint64_t call) {
  const detail::FusedRankView me = views[blockIdx.y];
  const int steps = plan.steps();
  // Begin: this kernel runs after whatever wrote this rank's vector, so the right neighbour may read it.
  for (int c = blockIdx.x; c < plan.chunks; c += gridDim.x) signal(me.right_ready + c, progress_flag(call, 0));
  for (int step = 0; step < steps; ++step) {
    const int segment = plan.receive_segment(me.rank, step);
    for (int c = blockIdx.x; c < plan.chunks; c += gridDim.x) {
      const Range piece = plan.piece(segment, c);
      wait_until(me.ready + c, progress_flag(call, step));  // the left neighbour has finished step - 1 here
      fused_piece(me.vector + piece.begin, me.left_vector + piece.begin, piece.size(), plan.reduces(step));
      signal(me.right_ready + c, progress_flag(call, step + 1));  // the right neighbour's next step may read it
    }
  }
  // End: the left neighbour's vector is no longer read here; wait until the right neighbour no longer
  // reads this one, so that whatever follows on this stream may overwrite it.
  for (int c = blockIdx.x; c < plan.chunks; c += gridDim.x) {
    signal(me.left_done + c, progress_flag(call, steps));
    wait_until(me.done + c, progress_flag(call, steps));
  }
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
