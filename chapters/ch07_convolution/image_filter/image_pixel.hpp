/// @file image_pixel.hpp
/// @brief From a filtered float sum to an 8-bit sample: one function, compiled for host and device,
/// so the CPU reference and the kernel cannot round differently.
#pragma once

#include <math.h>  // fminf, fmaxf: the same names in host and device code

#include <cstdint>
#include <cstring>

#include "pmpp/math.hpp"  // PMPP_HOST_DEVICE

namespace pmpp::ch07 {

/// Clamp @p sum to [0, 255], then round to the nearest integer, ties to even.
///
/// Clamping first keeps the rounding trick below in range, and gives the same answer as rounding
/// first because both steps are monotone. `fmaxf` returns the other operand when one is NaN, so NaN
/// becomes 0 on both sides.
///
/// Rounding: from 2^23 to 2^24 the floats are exactly the integers, so `clamped + 2^23` is itself
/// rounded to an integer by the addition, to nearest with ties to even (the default IEEE-754 mode,
/// which no program here changes), and that integer, 2^23 + n with n <= 255, keeps n in the low
/// byte of its bit pattern. This is `rintf` and a float-to-integer conversion done by one float
/// addition: on the GPU both conversions run on the quarter-rate conversion unit, once per output
/// sample, while an addition runs at the full rate of the FMAs around it.
PMPP_HOST_DEVICE inline std::uint8_t to_pixel(float sum) {
  const float clamped = fminf(fmaxf(sum, 0.0f), 255.0f);
  const float shifted = clamped + 8388608.0f;  // 2^23
  std::uint32_t bits;
  std::memcpy(&bits, &shifted, sizeof bits);  // the bit pattern, in host and device code alike
  return static_cast<std::uint8_t>(bits);     // low byte: n
}

}  // namespace pmpp::ch07
