/// @file max_reduction.hpp
/// @brief Exercise 10.1, the interface: a max reduction (section 10.1: an operator and its identity).
///
/// Shared by the starter code, the solution and the tests, so the two .cu files cannot drift apart.
#pragma once

#include <cstddef>

namespace pmpp::ex10 {

/// Threads per block; a block reduces 2 * MAX_BLOCK_DIM inputs (section 10.6's kernel).
inline constexpr int MAX_BLOCK_DIM = 256;

/// `*result = max(in[0], ..., in[n-1])`, and minus infinity (the identity of max) when `n == 0`.
/// Enqueues the work on the default stream and checks the launch; *result is ready after the next
/// synchronizing call.
/// @param[in]  in     device array of @p n floats; +-infinity allowed
/// @param[out] result one device float (may hold anything before the call)
/// @pre no NaN in the input (max is not defined for it here); n < 2^40.
void max_reduction(const float* in, std::size_t n, float* result);

}  // namespace pmpp::ex10
