// Every chapter-7 stage against the CPU reference over awkward sizes, every radius, asymmetric filters.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "pmpp/random.hpp"
#include "stage_runner.hpp"

using namespace pmpp::ch07;

namespace {
// 1x1, single rows and columns, primes, tile +- 1 (the text's tiles are 32 input and 32 - 2r output
// pixels wide), narrower than a tile, non-square both ways.
const std::vector<std::pair<int, int>> kSizes{{1, 1},   {1, 37},  {37, 1},  {31, 31}, {32, 32},  {33, 33},
                                              {28, 29}, {17, 95}, {95, 17}, {64, 3},  {127, 61}, {200, 131}};

void check_stage(const Stage& stage, bool exact, std::uint64_t seed) {
  for (int radius = 1; radius <= stage.max_radius; ++radius)
    for (auto [w, h] : kSizes) {
      DYNAMIC_SECTION(stage.id << " " << w << "x" << h << " r=" << radius) {
        const std::size_t taps = static_cast<std::size_t>(filter_dim(radius)) * filter_dim(radius);
        const auto in = exact ? pmpp::random_small_ints(static_cast<std::size_t>(w) * h, seed, -4, 4)
                              : pmpp::random_floats(static_cast<std::size_t>(w) * h, seed);
        const auto filter = exact ? pmpp::random_small_ints(taps, seed + 1, -3, 3) : pmpp::random_floats(taps, seed + 1);
        const auto want = convolution_2D_reference(in, filter, w, h, radius);
        const auto got = ch07_test::run_stage(stage, in, filter, w, h, radius);
        const pmpp::Tolerance tol = exact ? pmpp::Tolerance::exact() : pmpp::Tolerance{float_error_bound(filter, 1.0f), 0};
        const auto result = pmpp::compare(got, want, tol);
        INFO(result.summary());
        CHECK(result.ok());
      }
    }
}
}  // namespace

TEST_CASE("every stage is bit-exact on small integers", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage& stage : stages()) check_stage(stage, true, 11);
}

TEST_CASE("every stage is within the float error bound on random floats", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage& stage : stages()) check_stage(stage, false, 23);
}

TEST_CASE("a one-hot image reveals a flipped or transposed filter", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  const int w = 40, h = 35, r = 2;
  std::vector<float> image(static_cast<std::size_t>(w) * h, 0.0f);
  image[static_cast<std::size_t>(17) * w + 20] = 1.0f;
  std::vector<float> filter(25);
  for (int i = 0; i < 25; ++i) filter[i] = static_cast<float>(i + 1);
  const auto want = convolution_2D_reference(image, filter, w, h, r);
  for (const Stage& stage : stages()) {
    INFO(stage.id);
    CHECK(ch07_test::run_stage(stage, image, filter, w, h, r) == want);
  }
}

TEST_CASE("running a stage twice gives the same result", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  const auto in = pmpp::random_floats(70 * 50, 5);
  const auto filter = pmpp::random_floats(49, 6);
  for (const Stage& stage : stages()) {
    INFO(stage.id);
    CHECK(ch07_test::run_stage(stage, in, filter, 70, 50, 3) == ch07_test::run_stage(stage, in, filter, 70, 50, 3));
  }
}

TEST_CASE("stage 01's hand-written round trip matches the reference", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  const int w = 45, h = 33, r = 3;
  const auto in = pmpp::random_small_ints(static_cast<std::size_t>(w) * h, 3);
  const auto filter = pmpp::random_small_ints(49, 4, -3, 3);
  std::vector<float> out(static_cast<std::size_t>(w) * h);
  convolution_2D_basic_round_trip(in.data(), filter.data(), out.data(), w, h, r);
  CHECK(out == convolution_2D_reference(in, filter, w, h, r));
}
