// Exercise 7.1, basic 1D convolution: the graded tests (points in the tags). This file runs against
// the starter code (CTest label "exercise": fails until solved) and against the solution ("solution").
#include <vector>

#include "ch07/conv1d_basic.hpp"
#include "conv_checks.hpp"

using namespace ex_test;

namespace {

// The filter goes to the device as an ordinary (framed) array.
const ConvUnderTest kConv{1, 8, [](const float* x, const std::vector<float>& f, float* y, Extents e, int r) {
                            Framed d_f(f, kNaN);
                            pmpp::ex07::convolution_1D_basic(x, d_f.data(), y, e.nx, r);
                            CUDA_CHECK(cudaDeviceSynchronize());  // before d_f goes
                          }};

}  // namespace

TEST_CASE("small integers are bit-exact for every length and radius 0 to 8", "[gpu][points=4]") {
  PMPP_REQUIRE_GPU();
  // Lengths shorter than the filter, a warp +- 1, a block +- 1, primes.
  check_small_integers(kConv, lengths({1, 2, 3, 31, 32, 33, 97, 255, 256, 257, 1000, 4099}));
}

TEST_CASE("random floats are within the rounding bound", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  check_random_floats(kConv, lengths({257, 4099, 100003}), {1, 3, 8});
}

TEST_CASE("a one-hot input reproduces the filter reversed", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  check_one_hot(kConv, {101, 1, 1}, {50, 0, 0}, 4);
  check_one_hot(kConv, {9, 1, 1}, {1, 0, 0}, 8);  // the filter is wider than the input
}

TEST_CASE("more than 2^31 elements: indices are 64-bit", "[gpu][large][points=2]") {
  PMPP_REQUIRE_GPU();
  check_1d_beyond_2_31(
      [](const float* x, const std::vector<float>& f, float* y, std::int64_t n, int r) {
        Framed d_f(f, kNaN);
        pmpp::ex07::convolution_1D_basic(x, d_f.data(), y, n, r);
        CUDA_CHECK(cudaDeviceSynchronize());
      },
      3);
}

// No points: what one launch costs against its floor and the solution, with its counters (the filter
// read from device memory).
TEST_CASE("feedback: one large launch against its floor", "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  const ConvLaunch launch{
    [](const std::vector<float>&, int) {},
    [](const float* x, const float* d_f, float* y, Extents e, int r) {
      pmpp::ex07::convolution_1D_basic(x, d_f, y, e.nx, r);
    }};
  give_conv_feedback(kConv, launch, "ex07.1", "convolution_1D_basic of", {1 << 26, 1, 1}, 3, {});
}
