/// @file two_pass_sum.hpp
/// @brief Exercise 10.3, the interface: a sum reduction in two passes, without atomics, whose result
/// is the same bits on every run.
///
/// Shared by the starter code, the solution and the tests, so the two .cu files cannot drift apart.
#pragma once

#include <cstddef>

namespace pmpp::ex10 {

/// Threads per block (B below).
inline constexpr int TWO_PASS_BLOCK_DIM = 256;
/// Blocks of the first pass, at most (G below): few enough that one block can finish the job.
inline constexpr int TWO_PASS_MAX_BLOCKS = 1024;

/// `*result = in[0] + ... + in[n-1]` in float (0 when `n == 0`), added in this fixed order, so that
/// equal inputs give equal bits on every run and every GPU:
///
/// - pass 1 launches `G = min(ceil(n / 2B), TWO_PASS_MAX_BLOCKS)` blocks of B threads. Thread t of
///   block b starts from 0 and adds, for m = 0, 1, 2, ... in turn, `in[s]` and then `in[s + B]`, where
///   `s = m * 2BG + 2Bb + t`, skipping indices >= n. Then the block's convergent tree (Fig 10.11):
///   for stride = B/2, B/4, ..., 1, thread t < stride adds the value of thread t + stride to its own.
///   Thread 0's value is partial[b].
/// - pass 2 runs the same kernel with one block over partial[0 .. G) and writes `*result`.
///
/// Enqueues on the default stream and checks the launches; allocates (and frees) G floats of device
/// memory for the partial sums, so it synchronizes before returning.
/// @param[in]  in     device array of @p n floats (n may exceed 2^32)
/// @param[out] result one device float (may hold anything before the call)
void two_pass_sum_reduction(const float* in, std::size_t n, float* result);

}  // namespace pmpp::ex10
