// The CPU reference is the checker for every stage, so it is checked against the text first; then the
// inputs that make exact checks possible, and the rounding bound for the others.
#include <algorithm>
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/cli.hpp"

using Catch::Approx;
using namespace pmpp::ch10;

TEST_CASE("the text's sequential sum of {7.0, 2.1, 5.3, 9.0, 11.2} is 34.6 (section 10.1)", "[reference]") {
  CHECK(reduce_reference({7.0f, 2.1f, 5.3f, 9.0f, 11.2f}, Op::sum) == Approx(34.6).epsilon(1e-6));
}

TEST_CASE("the max tree of Fig 10.3: {3, 1, 7, 0, 4, 1, 6, 3} gives 7", "[reference]") {
  const std::vector<float> x{3, 1, 7, 0, 4, 1, 6, 3};
  CHECK(reduce_reference(x, Op::max) == 7);
  CHECK(reduce_reference(x, Op::min) == 0);
  CHECK(reduce_reference(x, Op::sum) == 25);
  CHECK(reduce_reference(x, Op::product) == 0);
}

TEST_CASE("identities: max's is -infinity, min's +infinity; reducing nothing gives them", "[reference]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(identity(Op::sum) == 0);
  CHECK(identity(Op::max) == -inf);
  CHECK(identity(Op::min) == inf);
  CHECK(identity(Op::product) == 1);
  for (Op op : {Op::sum, Op::max, Op::min, Op::product}) {
    INFO(op_name(op));
    CHECK(reduce_reference({}, op) == identity(op));
    for (double v : {-3.5, 0.0, 2.0, inf, -inf}) CHECK(apply(op, identity(op), v) == v);
  }
}

TEST_CASE("max and min see negatives and infinities", "[reference]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(reduce_reference({-5, -2, -9}, Op::max) == -2);
  CHECK(reduce_reference({-5, inf, -9}, Op::max) == std::numeric_limits<double>::infinity());
  CHECK(reduce_reference({5, -inf, 9}, Op::min) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("operator names round-trip and unknown names are usage errors", "[reference]") {
  for (const auto& name : op_names()) CHECK(op_name(parse_op(name)) == name);
  CHECK_THROWS_AS(parse_op("mean"), pmpp::UsageError);
}

TEST_CASE("exact inputs: every sum of them is exact in float, whatever the size", "[reference]") {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 21, (std::size_t{1} << 21) + 1,
                        (std::size_t{1} << 24) + 1}) {
    const auto x = make_inputs(n, Op::sum, InputKind::exact, 9);
    INFO("n = " << n);
    CHECK(sum_is_exact_in_float(x));
    double nonzero = 0;
    for (float v : x) nonzero += v != 0;
    CHECK(nonzero > 0.25 * std::min<double>(static_cast<double>(n), 1 << 23));  // not all zeros
  }
  CHECK_FALSE(sum_is_exact_in_float({0.5f, 1.0f}));                    // not integers
  CHECK_FALSE(sum_is_exact_in_float(std::vector<float>(3, 8388608.0f)));  // 3 * 2^23 > 2^24
}

TEST_CASE("inputs for max, min and product", "[reference]") {
  const auto mx = make_inputs(5000, Op::max, InputKind::exact, 1);
  const auto mn = make_inputs(5000, Op::min, InputKind::exact, 1);
  for (float v : mx) CHECK((v >= -3 && v < -1));
  for (float v : mn) CHECK((v >= 1 && v < 3));
  const auto p = make_inputs(100000, Op::product, InputKind::exact, 1);
  int negatives = 0;
  for (float v : p) {
    CHECK((std::fabs(v) == 0.5f || std::fabs(v) == 1.0f || std::fabs(v) == 2.0f));
    negatives += v < 0;
  }
  CHECK(negatives > 40000);
  CHECK(std::fabs(reduce_reference(p, Op::product)) > 0);  // no underflow to zero
}

TEST_CASE("the rounding bound gamma_k * sum|x|", "[reference]") {
  CHECK(sum_error_bound(0, 100) == 0);
  CHECK(sum_error_bound(10, 1) == Approx(10 * std::ldexp(1.0, -24) / (1 - 10 * std::ldexp(1.0, -24))));
  CHECK(std::isinf(sum_error_bound(std::size_t{1} << 24, 1)));  // k u >= 1: the bound says nothing
  CHECK(sum_of_magnitudes({-1.5f, 2.0f, -0.5f}) == 4.0);
}
