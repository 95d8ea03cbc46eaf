// Exercise 10.2, coarsened sum reduction for any length: the graded tests (points in the tags). Run
// against the starter code (label "exercise") and against the solution ("solution").
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "ch10/coarsened_sum.hpp"
#include "reduction_checks.hpp"
#include "repeating_array.hpp"
#include "feedback.hpp"
#include "speed_trial.hpp"

using namespace ex_test;
using pmpp::ex10::COARSE_FACTOR;
using pmpp::ex10::SUM_BLOCK_DIM;

namespace {

constexpr std::size_t kSegment = 2 * COARSE_FACTOR * SUM_BLOCK_DIM;  // inputs per block: 2048

float sum_of(const std::vector<float>& x) { return run_reduction(pmpp::ex10::coarsened_sum_reduction, x); }

}  // namespace

TEST_CASE("small integers: the exact sum for every size, twice", "[gpu][points=4]") {
  PMPP_REQUIRE_GPU();
  // 0, 1, sizes around a warp, half a block's inputs, a segment and three segments, primes, many
  // blocks. Integers in [-4, 4]: every partial sum stays below 2^24, so float adds them exactly.
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{255},
                        std::size_t{256}, std::size_t{257}, kSegment - 1, kSegment, kSegment + 1, 3 * kSegment + 17,
                        std::size_t{65537}, std::size_t{1000003}, (std::size_t{1} << 21) + 1}) {
    INFO("n = " << n);
    const auto x = pmpp::random_small_ints(n, 60 + n, -4, 4);
    const float first = sum_of(x);
    CHECK(first == sum_reference(x));
    CHECK(sum_of(x) == first);  // the result is reset, not accumulated, by every call
  }
}

TEST_CASE("a single 1 among zeros is counted exactly once, wherever it is", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  const std::size_t n = 3 * kSegment + 100;
  // Every step of a thread's serial loop, both ends of a segment, the partial last segment.
  for (std::size_t position : {std::size_t{0}, std::size_t{1}, std::size_t{SUM_BLOCK_DIM - 1},
                               std::size_t{SUM_BLOCK_DIM}, 3 * std::size_t{SUM_BLOCK_DIM} + 5, kSegment - 1, kSegment,
                               2 * kSegment + 7 * SUM_BLOCK_DIM, 3 * kSegment, n - 1}) {
    INFO("the 1 is at " << position << " of " << n);
    CHECK(sum_of(one_hot(n, position)) == 1.0f);
  }
}

TEST_CASE("random floats are within the rounding bound", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1001}, std::size_t{100003}}) {
    INFO("n = " << n);
    const auto x = pmpp::random_floats(n, 2 * n);
    // An input passes through 2 * COARSE_FACTOR serial additions, log2(256) = 8 levels of the tree,
    // and one atomic addition per block, in some order.
    const double depth = 2 * COARSE_FACTOR + 8 + static_cast<double>((n + kSegment - 1) / kSegment);
    const double got = sum_of(x), want = sum_reference(x);
    INFO("got " << got << ", want " << want << ", bound " << sum_error_bound(x, depth));
    CHECK(std::fabs(got - want) <= sum_error_bound(x, depth));
  }
}

TEST_CASE("more than 2^32 elements: indices are 64-bit", "[gpu][large][points=2]") {
  PMPP_REQUIRE_GPU();
  const std::size_t two32 = std::size_t{1} << 32, n = two32 + 37;
  // Zeros, with one distinct power of two on each side of 2^31 and 2^32 and at both ends: the exact
  // sum, 63, tells which were missed or counted twice. 16 GiB of input as a RepeatingArray: the zeros
  // away from the spikes all read one block of memory.
  const std::vector<std::pair<std::size_t, float>> spikes{
      {0, 1}, {(two32 >> 1) - 1, 2}, {two32 >> 1, 4}, {two32 - 1, 8}, {two32, 16}, {n - 1, 32}};
  std::vector<RepeatingArray::Window> windows;
  for (auto [index, value] : spikes) windows.push_back({index, 1});
  RepeatingArray d_in(n, windows);
  Framed d_result(1);
  d_in.zero();
  for (auto [index, value] : spikes) d_in.set(index, value);
  pmpp::ex10::coarsened_sum_reduction(d_in.data(), n, d_result.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(d_result.guards_intact());
  CHECK(d_result.to_host()[0] == 63.0f);
}

TEST_CASE("speed: at least half the solution's throughput on 2^28 floats", "[gpu][speed][points=2]") {
  PMPP_REQUIRE_GPU();
  require_device_memory(kTimedLength * sizeof(float));
  TimedSum trial(pmpp::ex10::coarsened_sum_reduction);
  pmpp_grader::check_speed({"coarsened_sum_reduction of 2^28 floats", 0.5, trial.prepare(), trial.run(),
                            trial.check(), timed_reduction_work()});
}

// No points: what the timed launch costs, against its floor and the solution, with its counters (the
// text: full warps read consecutive floats, 4 sectors per request; the tree in shared memory is
// conflict-free).
TEST_CASE("feedback: coarsened_sum_reduction of 2^28 floats against its floor", "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  require_device_memory(kTimedLength * sizeof(float));
  TimedSum trial(pmpp::ex10::coarsened_sum_reduction);
  pmpp_grader::give_feedback({"ex10.2", "coarsened_sum_reduction of 2^28 floats", timed_reduction_work(),
                              trial.prepare(), trial.run(), trial.check(),
                              {{"sectors_per_request", 4}, {"bank_conflicts", 0}}});
}
