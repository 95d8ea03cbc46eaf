/// @file tf32.hpp
/// @brief A float rounded or cut to TF32, the tensor cores' format (a float's sign and exponent, 10 of its
/// 23 mantissa bits), the same way on the CPU and the GPU: the tensor-core stages of chapters 5 and 7 use
/// these bit operations on the GPU, and their CPU checkers emulate the GPUs' arithmetic with them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "pmpp/math.hpp"

namespace pmpp {

//! [tf32_round]
inline constexpr std::uint32_t TF32_DROPPED_BITS = (1u << 13) - 1;  // the 13 mantissa bits TF32 does not keep

/// The bits of a finite float rounded to TF32: to nearest, ties away from zero, as cvt.rna.tf32.f32
/// rounds. The sign is a bit of its own, so adding half of the last kept place (bit 13) to the bits
/// rounds the magnitude, and clearing the 13 bits TF32 does not keep finishes it. A carry into the
/// exponent is the right answer: up to the next power of two, or to infinity past the largest float.
PMPP_HOST_DEVICE constexpr std::uint32_t tf32_round_bits(std::uint32_t bits) {
  return (bits + (1u << 12)) & ~TF32_DROPPED_BITS;
}

/// @p x rounded to TF32 on the CPU. Infinities and NaN pass unchanged (tf32_round_bits would turn a NaN
/// whose payload lies in the low 13 bits alone into an infinity).
inline float tf32_round(float x) {
  if (!std::isfinite(x)) return x;
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = tf32_round_bits(bits);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}
//! [tf32_round]

/// The bits of a float cut to TF32, toward zero: the 13 bits TF32 does not keep cleared. It moves the
/// value by less than one TF32 step (2^-10 of it), and is what the tensor cores do to an operand whose
/// low bits are not zero: they read its top 19 bits only.
PMPP_HOST_DEVICE constexpr std::uint32_t tf32_cut_bits(std::uint32_t bits) { return bits & ~TF32_DROPPED_BITS; }

/// @p x cut to TF32 on the CPU. Infinities stay infinities (their low bits are zero); a NaN whose payload
/// lies in the low 13 bits alone would become one, but the stages take finite inputs.
inline float tf32_cut(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = tf32_cut_bits(bits);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

}  // namespace pmpp
