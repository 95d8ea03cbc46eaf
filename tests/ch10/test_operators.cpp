// The operators of section 10.1 in the stages that take any operator (05, 06) and the CUB baseline:
// identities that must not leak into the result (all-negative max, all-positive min), infinities,
// exact products, and sizes that leave partial segments and partial float4s.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "gpu_test.hpp"
#include "pmpp/random.hpp"
#include "stage_runner.hpp"

using namespace pmpp::ch10;

namespace {
const std::vector<std::size_t> kSizes{1, 2, 3, 31, 33, 1025, 16385, 65537, 1000003};
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<const Stage*> operator_stages() {
  std::vector<const Stage*> list;
  for (const Stage& s : stages())
    if (s.all_operators) list.push_back(&s);
  list.push_back(&cub_baseline());
  return list;
}

void check_all(const std::vector<float>& in, Op op, const char* what) {
  const double want = reduce_reference(in, op);
  for (const Stage* stage : operator_stages()) {
    const float got = ch10_test::run_stage(*stage, in, op).value;
    INFO(stage->id << " " << op_name(op) << " of " << in.size() << " " << what << ": got " << got << ", want " << want);
    CHECK(static_cast<double>(got) == want);
  }
}
}  // namespace

TEST_CASE("at least one stage beyond the single-block ones takes every operator", "[gpu][operators]") {
  PMPP_REQUIRE_GPU();
  REQUIRE(operator_stages().size() >= 3);  // 05, 06 and CUB
}

TEST_CASE("max of negative values and min of positive values: the identity must not win", "[gpu][operators]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : kSizes) {
    check_all(make_inputs(n, Op::max, InputKind::exact, n), Op::max, "values in [-3, -1)");
    check_all(make_inputs(n, Op::min, InputKind::exact, n), Op::min, "values in [1, 3)");
  }
}

TEST_CASE("max and min with infinities", "[gpu][operators]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : kSizes) {
    auto values = pmpp::random_floats(n, 3 * n, -5.0f, 5.0f);
    auto with_plus = values;
    with_plus[n / 2] = kInf;
    check_all(with_plus, Op::max, "values and one +inf");
    check_all(with_plus, Op::min, "values and one +inf");
    auto with_minus = values;
    with_minus[n - 1] = -kInf;
    check_all(with_minus, Op::min, "values and a trailing -inf");
    check_all(with_minus, Op::max, "values and a trailing -inf");
    check_all(std::vector<float>(n, -kInf), Op::max, "copies of -inf (the max identity itself)");
    check_all(std::vector<float>(n, kInf), Op::min, "copies of +inf (the min identity itself)");
  }
}

TEST_CASE("products of signed powers of two are exact", "[gpu][operators]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : kSizes) check_all(make_inputs(n, Op::product, InputKind::exact, n), Op::product, "+-2^e");
  auto with_zero = make_inputs(65537, Op::product, InputKind::exact, 5);
  with_zero[40000] = 0.0f;
  check_all(with_zero, Op::product, "+-2^e and one zero");
}

TEST_CASE("sum with the operator stages on partial segments", "[gpu][operators]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : kSizes) check_all(make_inputs(n, Op::sum, InputKind::exact, n), Op::sum, "small integers");
}
