/// @file math.hpp
/// @brief ceil_div and friends, usable in host and device code.
#pragma once

#ifdef __CUDACC__
#define PMPP_HOST_DEVICE __host__ __device__
#else
#define PMPP_HOST_DEVICE
#endif

namespace pmpp {

/// Smallest q with q * b >= a, for a >= 0 and b > 0: the number of blocks that cover a elements.
template <class T>
PMPP_HOST_DEVICE constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

}  // namespace pmpp
