// TF32 rounding and cutting, shared by the GPU (the tensor-core stages of chapters 5 and 7) and the CPU
// checkers of both chapters: one definition each, tested here once.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <limits>

#include "float_bits.hpp"
#include "pmpp/random.hpp"
#include "pmpp/tf32.hpp"

using pmpp::tf32_cut;
using pmpp::tf32_round;
using pmpp_test::bits_of;

// The bit operation itself, at compile time (it is constexpr for the kernels that round with it).
static_assert(pmpp::tf32_round_bits(0x3F800000u) == 0x3F800000u);  // 1.0 is TF32 already
static_assert(pmpp::tf32_round_bits(0x3F801000u) == 0x3F802000u);  // 1 + 2^-11, a tie: away from zero
static_assert(pmpp::tf32_round_bits(0x3F800FFFu) == 0x3F800000u);  // just below the tie: down
static_assert(pmpp::tf32_round_bits(0x3FFFFFFFu) == 0x40000000u);  // the carry reaches the exponent
static_assert(pmpp::tf32_cut_bits(0x3FFFFFFFu) == 0x3FFFE000u);    // the cut never carries
static_assert(pmpp::tf32_cut_bits(0xBF801FFFu) == 0xBF800000u);    // negative: toward zero too

TEST_CASE("TF32 rounding keeps 10 mantissa bits, to nearest, ties away from zero", "[tf32]") {
  CHECK(tf32_round(1.0f) == 1.0f);
  CHECK(tf32_round(3.0f) == 3.0f);  // small integers are exact: the exact stage tests rely on it
  CHECK(tf32_round(-4.0f) == -4.0f);
  const float ulp = std::ldexp(1.0f, -10);                                      // TF32's step above 1
  CHECK(tf32_round(1.0f + std::ldexp(1.0f, -11)) == 1.0f + ulp);                // a tie: away from zero
  CHECK(tf32_round(-(1.0f + std::ldexp(1.0f, -11))) == -(1.0f + ulp));
  CHECK(tf32_round(1.0f + std::ldexp(1.0f, -11) - std::ldexp(1.0f, -23)) == 1.0f);  // just below the tie
  CHECK(tf32_round(2.0f - std::ldexp(1.0f, -23)) == 2.0f);  // the carry reaches the exponent
  CHECK(std::isinf(tf32_round(std::numeric_limits<float>::infinity())));
  CHECK(std::isinf(tf32_round(std::numeric_limits<float>::max())));  // past the largest float
  CHECK(std::isnan(tf32_round(std::numeric_limits<float>::quiet_NaN())));
  for (float x : pmpp::random_floats(10000, 3)) {
    const float r = tf32_round(x);
    CHECK((bits_of(r) & 0x1FFFu) == 0);  // the 13 dropped bits are zero
    CHECK(std::fabs(static_cast<double>(r) - x) <= std::ldexp(std::fabs(static_cast<double>(x)), -11));
  }
}

TEST_CASE("tf32_cut clears the 13 bits TF32 drops, toward zero", "[tf32]") {
  CHECK(tf32_cut(3.0f) == 3.0f);  // small integers are TF32 already
  CHECK(std::isinf(tf32_cut(std::numeric_limits<float>::infinity())));
  const float below_next = 1.0f + std::ldexp(1.0f, -10) - std::ldexp(1.0f, -23);
  CHECK(tf32_cut(below_next) == 1.0f);  // rounding to nearest would go up
  CHECK(tf32_cut(-below_next) == -1.0f);
  for (float x : pmpp::random_floats(10000, 4)) {
    const float c = tf32_cut(x);
    CHECK((bits_of(c) & 0x1FFFu) == 0);
    CHECK(std::fabs(c) <= std::fabs(x));
    CHECK(std::fabs(static_cast<double>(x) - c) < std::ldexp(1.0, -10) * std::fabs(x));
  }
}
