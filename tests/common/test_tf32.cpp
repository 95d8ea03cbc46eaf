// TF32 rounding, shared by the GPU (chapter 7's tensor-core stages) and the CPU checkers of chapters 5
// and 7: one definition, tested here once.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <limits>

#include "float_bits.hpp"
#include "pmpp/random.hpp"
#include "pmpp/tf32.hpp"

using pmpp::tf32_round;
using pmpp_test::bits_of;

// The bit operation itself, at compile time (it is constexpr for the kernels that round with it).
static_assert(pmpp::tf32_round_bits(0x3F800000u) == 0x3F800000u);  // 1.0 is TF32 already
static_assert(pmpp::tf32_round_bits(0x3F801000u) == 0x3F802000u);  // 1 + 2^-11, a tie: away from zero
static_assert(pmpp::tf32_round_bits(0x3F800FFFu) == 0x3F800000u);  // just below the tie: down
static_assert(pmpp::tf32_round_bits(0x3FFFFFFFu) == 0x40000000u);  // the carry reaches the exponent

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
