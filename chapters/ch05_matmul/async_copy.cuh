/// @file async_copy.cuh
/// @brief Copies from global to shared memory that do not pass through registers (`cp.async`, compute
/// capability 8.0 and later), with zeros for what lies outside a matrix. Compiled for an older GPU the
/// same calls copy synchronously, through registers, so a kernel written with them runs everywhere.
///
/// A thread issues copies, closes them into a group (copy_async_commit), and later waits until only
/// the newest groups are still in flight (copy_async_wait). The wait covers this thread's own copies:
/// other threads see them after a barrier (`__syncthreads()`), as with ordinary stores.
#pragma once

#include <cuda_runtime.h>

namespace pmpp::ch05 {

/// Copy BYTES (4 or 16, aligned to BYTES) from global @p src to shared @p dst, or, when @p inside is
/// false, write BYTES of zeros to @p dst and read nothing (@p src must still be a valid address).
template <int BYTES>
__device__ __forceinline__ void copy_async(void* dst, const void* src, bool inside) {
  static_assert(BYTES == 4 || BYTES == 16, "cp.async moves 4, 8 or 16 bytes; these kernels use 4 and 16");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned int to = static_cast<unsigned int>(__cvta_generic_to_shared(dst));
  const int src_bytes = inside ? BYTES : 0;  // the bytes after src_bytes are filled with zeros
  if constexpr (BYTES == 16)  // .cg: through L2 only; the slice is read from shared memory, not again from L1
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src), "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(src), "r"(src_bytes));
#else
  if constexpr (BYTES == 16)
    *static_cast<float4*>(dst) = inside ? *static_cast<const float4*>(src) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  else
    *static_cast<float*>(dst) = inside ? *static_cast<const float*>(src) : 0.0f;
#endif
}

/// Close the copies this thread issued since the last commit into one group.
__device__ __forceinline__ void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Wait until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

}  // namespace pmpp::ch05
