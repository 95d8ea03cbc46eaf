/// @file coarsened_sum.hpp
/// @brief Exercise 10.2, the interface: the coarsened sum reduction of section 10.8, for any length.
///
/// Shared by the starter code, the solution and the tests, so the two .cu files cannot drift apart.
#pragma once

#include <cstddef>

namespace pmpp::ex10 {

/// Threads per block.
inline constexpr int SUM_BLOCK_DIM = 256;
/// Each thread adds 2 * COARSE_FACTOR inputs on its own before the block's tree, so a block covers
/// 2 * COARSE_FACTOR * SUM_BLOCK_DIM inputs (its segment).
inline constexpr int COARSE_FACTOR = 4;

/// `*result = in[0] + ... + in[n-1]` in float, 0 when `n == 0`. Enqueues the work on the default
/// stream and checks the launch; *result is ready after the next synchronizing call.
/// @param[in]  in     device array of @p n floats; n need not be a multiple of anything, and may
///                    exceed 2^32 (index in 64 bits)
/// @param[out] result one device float (may hold anything before the call)
void coarsened_sum_reduction(const float* in, std::size_t n, float* result);

}  // namespace pmpp::ex10
