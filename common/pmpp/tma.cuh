/// @file tma.cuh
/// @brief Hopper's Tensor Memory Accelerator (TMA) and the shared-memory barriers it reports to, each
/// one PTX instruction a student can look up, for the stages that copy tiles with it.
///
/// The TMA copies a whole box of a tensor (a tile of a matrix or an image) between global and shared
/// memory on one thread's request. The tensor's shape is described once on the host, in a *tensor map*
/// (pmpp/tensor_map.hpp), passed to the kernel as a `__grid_constant__` parameter. The copy is
/// asynchronous: it counts the bytes it has written on an *mbarrier* in shared memory, and the threads
/// that need the tile wait on that barrier. An mbarrier's use is split into *phases*: a phase completes
/// when the expected number of threads have arrived and every byte announced for it has landed; the
/// next use of the barrier is the next phase, and waits name a phase by its parity (0, 1, 0, ...).
///
/// These need compute capability 9.0 and code compiled for it: the functions exist only in such code,
/// and each caller's kernel says what it does elsewhere.
#pragma once

#include <cuda.h>  // CUtensorMap (no driver library is linked)
#include <cuda_runtime.h>

#include <cstdint>

namespace pmpp::tma {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// An mbarrier whose phases complete when @p arrivals threads have arrived and every byte announced
/// to it has been written.
__device__ __forceinline__ void barrier_init(std::uint64_t* barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals) : "memory");
}

/// Make the initialised barriers visible to the TMA, which reaches them through another path (the
/// "async proxy") than the threads' own loads and stores.
__device__ __forceinline__ void barrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

/// Arrive, announcing that @p bytes more bytes will be written in this phase.
__device__ __forceinline__ void barrier_arrive_expecting(std::uint64_t* barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
}

/// Arrive: this thread is done with what the barrier guards, for this phase.
__device__ __forceinline__ void barrier_arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
}

/// Wait until the barrier's phase with this parity (0, 1, 0, ... for its 1st, 2nd, 3rd use) is complete.
__device__ __forceinline__ void barrier_wait(std::uint64_t* barrier, unsigned parity) {
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "WAIT_%=:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "  @!done bra WAIT_%=;\n"
      "}\n" ::"r"(shared_address(barrier)),
      "r"(parity)
      : "memory");
}

/// Copy the box of the 2D tensor map whose first element is at (@p col, @p row) into shared memory at
/// @p box, laid out as the map says (row after row, swizzled if the map swizzles); the bytes count on
/// @p barrier. Coordinates may be negative or past the edge: those elements are written as zeros.
__device__ __forceinline__ void copy_box(void* box, const CUtensorMap* map, int col, int row, std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(shared_address(box)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(barrier))
      : "memory");
}

#endif

}  // namespace pmpp::tma
