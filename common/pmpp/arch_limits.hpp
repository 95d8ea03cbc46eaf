/// @file arch_limits.hpp
/// @brief What the architecture being compiled can hold, known at compile time: for launch bounds.
///
/// `__launch_bounds__(threads, min_blocks)` promises the compiler that `min_blocks` blocks fit on one
/// SM together; ptxas rejects a promise the architecture cannot keep (a T4 holds 1024 threads per SM,
/// an RTX 30xx/40xx/50xx 1536, an A100, H100 or B200 2048). Each device pass of nvcc compiles for
/// one architecture, so the bound is taken from `__CUDA_ARCH__` there. Run-time choices (grid sizes)
/// ask the device instead (`cudaDevAttrMaxThreadsPerMultiProcessor`).
#pragma once

namespace pmpp {

/// Resident threads per SM of the architecture this device pass compiles for. The host pass, which
/// parses launch bounds but never uses them, sees 2048.
constexpr int max_threads_per_sm() {
#if !defined(__CUDA_ARCH__)
  return 2048;
#elif __CUDA_ARCH__ == 750
  return 1024;  // Turing: T4, RTX 20xx
#elif __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030
  return 2048;  // A100, H100/H200, B200/B300
#else
  return 1536;  // 8.6, 8.7, 8.9, 11.x, 12.x, and any architecture not listed: never more than it holds
#endif
}

/// The `min_blocks` argument of `__launch_bounds__` that fills an SM of this architecture with
/// blocks of @p block_threads (at least 1).
constexpr int min_blocks_to_fill_sm(int block_threads) {
  return max_threads_per_sm() / block_threads > 0 ? max_threads_per_sm() / block_threads : 1;
}

}  // namespace pmpp
