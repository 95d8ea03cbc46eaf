#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <set>

#include "pmpp/random.hpp"

TEST_CASE("random inputs are reproducible, in range and not constant", "[random]") {
  const auto a = pmpp::random_floats(1000, 7), b = pmpp::random_floats(1000, 7), c = pmpp::random_floats(1000, 8);
  CHECK(a == b);
  CHECK(a != c);
  std::set<float> distinct(a.begin(), a.end());
  CHECK(distinct.size() > 900);
  for (float x : a) CHECK((x >= -1.0f && x < 1.0f));
}

TEST_CASE("small-integer inputs are integers in range, using the whole range", "[random]") {
  const auto v = pmpp::random_small_ints(1000, 3, -4, 4);
  std::set<float> seen(v.begin(), v.end());
  CHECK(seen.size() == 9);
  for (float x : v) CHECK((x == std::round(x) && x >= -4 && x <= 4));
}
