// Exercise 10.1, max reduction: the graded tests (points in the tags). Run against the starter code
// (label "exercise") and against the solution ("solution"). Max is exact, so every check is.
#include <vector>

#include "ch10/max_reduction.hpp"
#include "reduction_checks.hpp"
#include "feedback.hpp"
#include "speed_trial.hpp"

using namespace ex_test;
using pmpp::ex10::MAX_BLOCK_DIM;

namespace {

// A block takes 2 * 256 = 512 inputs: 0, 1, a warp +- 1, a block's segment +- 1, odd and prime sizes,
// many blocks.
const std::vector<std::size_t> kSizes{0, 1, 2, 31, 32, 33, 511, 512, 513, 1000, 4097, 65537, (1u << 20) + 3};

// Past the end of the input lies +infinity: a kernel that reads there returns it.
float max_of(const std::vector<float>& x) { return run_reduction(pmpp::ex10::max_reduction, x, kInf); }

}  // namespace

TEST_CASE("random floats: the exact maximum for every size", "[gpu][points=3]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : kSizes) {
    INFO("n = " << n);
    const auto x = pmpp::random_floats(n, 40 + n);
    CHECK(same_bits(max_of(x), max_reference(x)));
  }
}

TEST_CASE("all-negative inputs: the identity is minus infinity, not zero", "[gpu][points=3]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : kSizes) {
    if (n == 0) continue;
    INFO("n = " << n);
    const auto x = pmpp::random_floats(n, 90 + n, -100.0f, -1.0f);
    CHECK(same_bits(max_of(x), max_reference(x)));
  }
}

TEST_CASE("infinities: +inf wins, all -inf gives -inf, and so does an empty input", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  auto x = pmpp::random_floats(3001, 7, -5.0f, -1.0f);
  x[1234] = kInf;
  CHECK(max_of(x) == kInf);
  CHECK(max_of(std::vector<float>(3001, -kInf)) == -kInf);
  CHECK(max_of({}) == -kInf);
  auto y = pmpp::random_floats(777, 8, -5.0f, -1.0f);
  for (std::size_t i = 0; i < y.size(); i += 2) y[i] = -kInf;
  CHECK(same_bits(max_of(y), max_reference(y)));
}

TEST_CASE("the maximum is found wherever it is", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  const std::size_t segment = 2 * MAX_BLOCK_DIM, n = 5 * segment + 3;
  for (std::size_t position : {std::size_t{0}, std::size_t{1}, segment / 2 - 1, segment / 2, segment - 1, segment,
                               segment + 1, 4 * segment + segment / 2, n - 1}) {
    INFO("maximum at " << position << " of " << n);
    auto x = pmpp::random_floats(n, position, -10.0f, -1.0f);
    x[position] = 0.5f;
    CHECK(max_of(x) == 0.5f);
  }
}

TEST_CASE("speed: at least half the solution's throughput on 2^28 floats", "[gpu][speed][points=2]") {
  PMPP_REQUIRE_GPU();
  require_device_memory(kTimedLength * sizeof(float));
  TimedMax trial(pmpp::ex10::max_reduction);
  pmpp_grader::check_speed({"max_reduction of 2^28 floats", 0.5, trial.prepare(), trial.run(), trial.check(),
                            timed_reduction_work()});
}

// No points: what the timed launch costs, against its floor and the solution, with its counters (the
// text: full warps read consecutive floats, 4 sectors per request; the tree in shared memory is
// conflict-free).
TEST_CASE("feedback: max_reduction of 2^28 floats against its floor", "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  require_device_memory(kTimedLength * sizeof(float));
  TimedMax trial(pmpp::ex10::max_reduction);
  pmpp_grader::give_feedback({"ex10.1", "max_reduction of 2^28 floats", timed_reduction_work(), trial.prepare(),
                              trial.run(), trial.check(), {{"sectors_per_request", 4}, {"bank_conflicts", 0}}});
}
