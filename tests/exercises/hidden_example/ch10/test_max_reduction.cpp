// An example hidden test for exercise 10.1 (see ../README.md).
#include <vector>

#include "ch10/max_reduction.hpp"
#include "reduction_checks.hpp"

using namespace ex_test;

TEST_CASE("hidden: the maximum repeated many times, and ties with infinity", "[gpu][points=1]") {
  PMPP_REQUIRE_GPU();
  std::vector<float> x(12345, -2.0f);
  for (std::size_t i = 0; i < x.size(); i += 7) x[i] = -1.5f;
  CHECK(run_reduction(pmpp::ex10::max_reduction, x, kInf) == -1.5f);
  x[12344] = kInf;
  x[0] = kInf;
  CHECK(run_reduction(pmpp::ex10::max_reduction, x, kNaN) == kInf);
}
