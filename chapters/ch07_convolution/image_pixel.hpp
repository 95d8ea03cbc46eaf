/// @file image_pixel.hpp
/// @brief From a filtered float sum to an 8-bit sample: one function, compiled for host and device,
/// so the CPU reference and the kernel cannot round differently.
#pragma once

#include <math.h>  // fminf, fmaxf, rintf: the same names in host and device code

#include <cstdint>

#include "pmpp/math.hpp"  // PMPP_HOST_DEVICE

namespace pmpp::ch07 {

/// Clamp @p sum to [0, 255], then round to the nearest integer, ties to even.
///
/// Clamping first keeps the float-to-integer conversion in range (converting 1e10 to an integer
/// is undefined in C++), and gives the same answer as rounding first because both steps are
/// monotone. `fmaxf` returns the other operand when one is NaN, so NaN becomes 0 on both sides.
/// `rintf` rounds in the current rounding mode: round-to-nearest-even on the device and, unless a
/// program changes it with fesetround, on the host.
PMPP_HOST_DEVICE inline std::uint8_t to_pixel(float sum) {
  const float clamped = fminf(fmaxf(sum, 0.0f), 255.0f);
  return static_cast<std::uint8_t>(rintf(clamped));
}

}  // namespace pmpp::ch07
