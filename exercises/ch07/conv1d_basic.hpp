/// @file conv1d_basic.hpp
/// @brief Exercise 7.1, the interface: the basic convolution of section 7.2, in one dimension.
///
/// Shared by the starter code (exercises/ch07/conv1d_basic.cu), the solution
/// (solutions/ch07/conv1d_basic.cu) and the tests, so the two .cu files cannot drift apart.
#pragma once

#include <cstdint>

namespace pmpp::ex07 {

/// Threads per block of the launcher (one thread per output element).
inline constexpr int BASIC_1D_BLOCK_DIM = 256;

/// `y[i] = sum_{j=0}^{2r} f[j] * x[i - r + j]` for `0 <= i < n`; inputs outside `[0, n)` are ghost
/// cells and count as zero. The filter is not flipped (the text's convention).
///
/// Enqueues the kernel on the default stream and checks the launch; does not synchronize.
/// @param[in]  x device array of @p n inputs
/// @param[in]  f device array of `2 * radius + 1` taps
/// @param[out] y device array of @p n outputs (may hold anything before the call)
/// @pre `0 <= n` (n may exceed 2^31: index in 64 bits), `0 <= radius <= 1024`;
///      throws std::invalid_argument otherwise.
void convolution_1D_basic(const float* x, const float* f, float* y, std::int64_t n, int radius);

}  // namespace pmpp::ex07
