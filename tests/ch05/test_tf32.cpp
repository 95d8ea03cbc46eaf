// What the tensor-core stages do to their operands, emulated on the CPU: the big + small split of stage 07
// and the error bounds the checker gives them (TF32 rounding itself: tests/common/test_tf32.cpp).
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/random.hpp"
#include "float_bits.hpp"

using namespace pmpp::ch05;

namespace {
using pmpp_test::bits_of;
}  // namespace

TEST_CASE("big + small reconstructs x to 2^-21 of x, and the dropped product is below 2^-20", "[tf32]") {
  double worst_rest = 0;
  for (float x : pmpp::random_floats(100000, 5)) {
    const Tf32Split s = tf32_split(x);
    CHECK(s.big == tf32_cut(x));
    CHECK((bits_of(s.small) & 0x1FFFu) == 0);  // both parts are TF32 values
    CHECK(std::fabs(s.small) < std::ldexp(1.0, -10) * std::fabs(x));
    const double rest = std::fabs(static_cast<double>(x) - s.big - s.small);
    CHECK(rest < std::ldexp(1.0, -21) * std::fabs(x));
    worst_rest = std::fmax(worst_rest, rest / std::fabs(x));
  }
  CHECK(worst_rest > std::ldexp(1.0, -23));  // the split is not exact (else the test would prove nothing)
  // The three products of one term, against the exact product: within SPLIT_TF32_PRODUCT_ERROR.
  const auto a = pmpp::random_floats(20000, 7), b = pmpp::random_floats(20000, 8);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Tf32Split x = tf32_split(a[i]), y = tf32_split(b[i]);
    const double three = static_cast<double>(x.big) * y.small + static_cast<double>(x.small) * y.big +
                         static_cast<double>(x.big) * y.big;
    const double exact = static_cast<double>(a[i]) * b[i];
    CHECK(std::fabs(three - exact) <= SPLIT_TF32_PRODUCT_ERROR * std::fabs(exact));
  }
}

TEST_CASE("one TF32 product errs by up to about 2^-10 of it; the bound allows it and the FP32 one does not",
          "[tf32]") {
  // a = b = 1 + 2^-11 + 2^-12: each rounds up to 1 + 2^-10, an error of 2^-12 (a quarter of a TF32 step).
  const float a = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12);
  const double exact = static_cast<double>(a) * a, tf32 = static_cast<double>(tf32_round(a)) * tf32_round(a);
  const double err = std::fabs(tf32 - exact);
  CHECK(err <= tf32_error_bound(1, exact));
  CHECK(err > float_error_bound(1, exact));
}

TEST_CASE("A cut to TF32 errs by up to 2^-10 of it: stage 09's bound allows it, stage 06's does not", "[tf32]") {
  // a = 1 + 2^-10 - 2^-23 is cut to 1 (the tensor cores' cut); b = 1 + 2^-12 rounds to 1 (the pre-pass).
  const float a = 1.0f + std::ldexp(1.0f, -10) - std::ldexp(1.0f, -23), b = 1.0f + std::ldexp(1.0f, -12);
  const double exact = static_cast<double>(a) * b, tf32 = static_cast<double>(tf32_cut(a)) * tf32_round(b);
  const double err = std::fabs(tf32 - exact);
  CHECK(err > tf32_error_bound(1, exact));
  CHECK(err <= tf32_cut_a_error_bound(1, exact));
}

TEST_CASE("the tensor-core bounds sit where their arithmetic puts them", "[tf32]") {
  const double m = 1000.0;
  for (int K : {1, 7, 4096}) {
    INFO("K " << K);
    CHECK(tf32_error_bound(K, m) > float_error_bound(K, m) + std::ldexp(1.0, -10) * m);
    CHECK(tf32_cut_a_error_bound(K, m) > float_error_bound(2 * K + 1, m) + 1.5 * std::ldexp(1.0, -10) * m);
    CHECK(tf32_cut_a_error_bound(K, m) < float_error_bound(2 * K + 1, m) * 1.01 + 1.51 * std::ldexp(1.0, -10) * m);
    CHECK(split_tf32_error_bound(K, m) > float_error_bound(K, m));
    CHECK(split_tf32_error_bound(K, m) < float_error_bound(K, m) * 1.01 + 32.1 * FLOAT_UNIT_ROUNDOFF * m);
  }
  CHECK(split_tf32_error_bound(4096, m) < 1.02 * float_error_bound(4096, m));  // FP32's bound at large K
  CHECK(tf32_error_bound(4096, 0.0) == 0.0);
  CHECK(FP32_ROUNDING.of == float_error_bound);
  CHECK(TF32_ROUNDING.of == tf32_error_bound);
  CHECK(TF32_CUT_A_ROUNDING.of == tf32_cut_a_error_bound);
  CHECK(SPLIT_TF32_ROUNDING.of == split_tf32_error_bound);
}

TEST_CASE("each stage row names its arithmetic and a bound that matches it", "[tf32]") {
  for (const Stage& s : stages()) {
    INFO(s.id);
    REQUIRE(s.error_bound != nullptr);
    const std::string arithmetic = s.arithmetic;
    if (arithmetic == "FP32") CHECK(s.error_bound == &FP32_ROUNDING);
    else if (arithmetic == "TF32") CHECK((s.error_bound == &TF32_ROUNDING || s.error_bound == &TF32_CUT_A_ROUNDING));
    else CHECK((arithmetic == "3xTF32" && s.error_bound == &SPLIT_TF32_ROUNDING));
    CHECK((s.unavailable == nullptr) == (arithmetic == "FP32"));  // only the tensor-core stages can be skipped
  }
}
