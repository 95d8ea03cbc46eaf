#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "pmpp/check.hpp"

using pmpp::compare;
using pmpp::Tolerance;
using pmpp::within;

TEST_CASE("within: absolute plus relative tolerance", "[check]") {
  CHECK(within(1.0, 1.0, Tolerance::exact()));
  CHECK_FALSE(within(1.0 + 1e-12, 1.0, Tolerance::exact()));
  CHECK(within(0.0 + 1e-7, 0.0, {1e-6, 0}));
  CHECK(within(1000.5, 1000.0, {0, 1e-3}));
  CHECK_FALSE(within(1002.0, 1000.0, {0, 1e-3}));
}

TEST_CASE("within: NaN never passes, infinities must match", "[check]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_FALSE(within(nan, 1.0, {1e30, 1e30}));
  CHECK_FALSE(within(nan, 0.0, {1e30, 1e30}));
  CHECK(within(inf, inf, {}));
  CHECK_FALSE(within(-inf, inf, {1e30, 1e30}));
  CHECK_FALSE(within(inf, 1.0, {1e30, 1e30}));
}

TEST_CASE("compare reports the worst error and the first mismatching indices", "[check]") {
  std::vector<float> want(100, 1.0f), got(100, 1.0f);
  got[7] = 1.5f;
  got[42] = std::nanf("");
  got[90] = 1.25f;
  const auto r = compare(got, want, {1e-3, 0});
  CHECK_FALSE(r.ok());
  CHECK(r.mismatches == 3);
  REQUIRE(r.first_bad.size() == 3);
  CHECK(r.first_bad[0] == 7);
  CHECK(r.first_bad[1] == 42);
  CHECK(r.worst_index == 42);  // a NaN is the worst error of all
  CHECK(std::isnan(r.worst_error));
  CHECK(r.summary().rfind("FAIL", 0) == 0);
}

TEST_CASE("compare passes equal data and fails on length mismatch or nothing checked", "[check]") {
  const std::vector<float> a{1, 2, 3};
  CHECK(compare(a, a, Tolerance::exact()).ok());
  CHECK(compare(a, a, Tolerance::exact()).summary().rfind("PASS", 0) == 0);
  CHECK_FALSE(compare(a, std::vector<float>{1, 2}, {1, 1}).ok());
  CHECK_FALSE(compare(std::vector<float>{}, std::vector<float>{}, {}).ok());
}

TEST_CASE("the summary counts values in words: 1 value, 2 values", "[check]") {
  const std::vector<float> one{1}, two{1, 2};
  CHECK(compare(one, one, Tolerance::exact()).summary().rfind("PASS: 1 value, ", 0) == 0);
  CHECK(compare(two, two, Tolerance::exact()).summary().rfind("PASS: 2 values, ", 0) == 0);
  CHECK(compare(std::vector<float>{0}, one, Tolerance::exact()).summary().rfind("FAIL: 1 of 1 value differs;", 0) == 0);
  CHECK(compare(std::vector<float>{0, 0}, two, Tolerance::exact()).summary().rfind("FAIL: 2 of 2 values differ;", 0) == 0);
}
