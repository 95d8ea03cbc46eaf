// Exercise 10.3, a sum in two passes without atomics: the graded tests (points in the tags). Run
// against the starter code (label "exercise") and against the solution ("solution").
#include <cmath>
#include <vector>

#include "ch10/two_pass_sum.hpp"
#include "feedback.hpp"
#include "reduction_checks.hpp"

using namespace ex_test;
using pmpp::ex10::TWO_PASS_BLOCK_DIM;
using pmpp::ex10::TWO_PASS_MAX_BLOCKS;

namespace {

constexpr std::size_t kStep = 2 * std::size_t{TWO_PASS_BLOCK_DIM} * TWO_PASS_MAX_BLOCKS;  // one grid step

float sum_of(const std::vector<float>& x) { return run_reduction(pmpp::ex10::two_pass_sum_reduction, x); }

float model_of(const std::vector<float>& x) { return two_pass_model(x, TWO_PASS_BLOCK_DIM, TWO_PASS_MAX_BLOCKS); }

}  // namespace

TEST_CASE("random floats: bit for bit the specified order of additions", "[gpu][points=4]") {
  PMPP_REQUIRE_GPU();
  // One block +- 1, fewer blocks than the most, one grid step (2 * 256 * 1024 inputs) +- 1, several.
  for (std::size_t n : {std::size_t{513}, std::size_t{1537}, std::size_t{262145}, kStep - 1, kStep, kStep + 1,
                        3 * kStep + 77, std::size_t{5000003}}) {
    INFO("n = " << n);
    const auto x = pmpp::random_floats(n, 70 + n);
    const float got = sum_of(x), want = model_of(x);
    INFO("got " << got << ", the specified order gives " << want);
    CHECK(same_bits(got, want));
  }
}

TEST_CASE("small integers: the exact sum, including n = 0 and 1", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{511}, std::size_t{512},
                        std::size_t{513}, std::size_t{100003}, std::size_t{1048577}}) {
    INFO("n = " << n);
    const auto x = pmpp::random_small_ints(n, 80 + n, -4, 4);
    CHECK(sum_of(x) == sum_reference(x));
  }
}

TEST_CASE("a single 1 among zeros is counted exactly once, wherever it is", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  const std::size_t B = TWO_PASS_BLOCK_DIM, n = 2 * kStep + 1000;
  // Both halves of a block's pair, the next block, the next grid step, the partial last step.
  for (std::size_t position : {std::size_t{0}, B - 1, B, 2 * B - 1, 2 * B, kStep - 1, kStep, kStep + B, 2 * kStep + 999}) {
    INFO("the 1 is at " << position << " of " << n);
    CHECK(sum_of(one_hot(n, position)) == 1.0f);
  }
}

TEST_CASE("random floats: within the rounding bound, and the same bits on every run", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  const std::size_t n = 3000017, B = TWO_PASS_BLOCK_DIM, G = TWO_PASS_MAX_BLOCKS;
  const auto x = pmpp::random_floats(n, 99);
  // An input's path: two additions per grid step in pass 1, log2(B) = 8 tree levels, then the same in
  // pass 2 over G partial sums.
  const double depth = 2.0 * ((n + 2 * B * G - 1) / (2 * B * G)) + 8 + 2.0 * ((G + 2 * B - 1) / (2 * B)) + 8;
  const float first = sum_of(x);
  INFO("got " << first << ", want " << sum_reference(x) << ", bound " << sum_error_bound(x, depth));
  CHECK(std::fabs(first - sum_reference(x)) <= sum_error_bound(x, depth));
  for (int run = 2; run <= 5; ++run) {
    INFO("run " << run);
    CHECK(same_bits(sum_of(x), first));
  }
}

// No points: what a launch on 2^28 floats costs, against its floor and the solution, with its counters
// (the text: full warps read consecutive floats, 4 sectors per request; the tree in shared memory is
// conflict-free). Small integers: both passes add them exactly, in any order.
TEST_CASE("feedback: two_pass_sum_reduction of 2^28 floats against its floor",
          "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  require_device_memory(kTimedLength * sizeof(float));
  TimedSum trial(pmpp::ex10::two_pass_sum_reduction);
  pmpp_grader::give_feedback({"ex10.3", "two_pass_sum_reduction of 2^28 floats", timed_reduction_work(),
                              trial.prepare(), trial.run(), trial.check(),
                              {{"sectors_per_request", 4}, {"bank_conflicts", 0}}});
}
