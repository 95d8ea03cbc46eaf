/// @file float_bits.hpp
/// @brief A float's 32 bits as an unsigned integer, for tests that compare roundings bit by bit.
#pragma once

#include <cstdint>
#include <cstring>

namespace pmpp_test {

inline std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace pmpp_test
