/// @file wgmma_sync.cuh
/// @brief What every use of Hopper's warpgroup matrix multiply (`wgmma.mma_async`) needs around the
/// instruction itself: whether this compilation has it, and the fences, commits and waits that order it
/// against the warpgroup's own reads and writes. The instructions of each shape live with the stages
/// that use them.
///
/// wgmma exists only in code compiled for sm_90a ("a": this architecture's own features, which later
/// GPUs do not promise to keep). In every other compilation these functions trap; the launchers that use
/// them ask wgmma_unavailable_here (wgmma_available.cuh) first and never start such a kernel there.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace pmpp {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PMPP_HAVE_WGMMA 1
#endif

/// Make the warpgroup's earlier register writes (the accumulators) visible to the wgmmas that follow.
__device__ __forceinline__ void wgmma_fence() {
#ifdef PMPP_HAVE_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}

/// Close the wgmmas this warpgroup issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit() {
#ifdef PMPP_HAVE_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}

/// Wait until at most PENDING of this warpgroup's committed groups are still running.
template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
#ifdef PMPP_HAVE_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
#else
  __trap();
#endif
}

/// Shared memory written by ordinary stores or by cp.async is read by wgmma through the "async proxy":
/// each writing thread orders its writes for it with this fence, before the barrier that publishes them.
__device__ __forceinline__ void fence_for_async_proxy() {
#ifdef PMPP_HAVE_WGMMA
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  __trap();
#endif
}

/// Tell the compiler that @p d may change behind its back until wgmma_wait returns: it must not move
/// reads of the accumulators above the wait, nor keep copies of them across it.
template <int N>
__device__ __forceinline__ void wgmma_operand_fence(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/// The same for A operands held in registers: placed just before wgmma_fence, it makes the compiler
/// finish writing them there, rather than sink the writes past the fence (where the wgmmas would have
/// to wait for them, one at a time).
template <int N>
__device__ __forceinline__ void wgmma_operand_fence(std::uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

}  // namespace pmpp
