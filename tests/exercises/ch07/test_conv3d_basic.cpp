// Exercise 7.4, basic 3D convolution: the graded tests (points in the tags). Run against the starter
// code (label "exercise") and against the solution ("solution").
#include <vector>

#include "ch07/conv3d_basic.hpp"
#include "conv_checks.hpp"

using namespace ex_test;

namespace {

const ConvUnderTest kConv{3, 3, [](const float* in, const std::vector<float>& f, float* out, Extents e, int r) {
                            Framed d_f(f, kNaN);
                            pmpp::ex07::convolution_3D_basic(in, d_f.data(), out, e.nx, e.ny, e.nz, r);
                            CUDA_CHECK(cudaDeviceSynchronize());  // before d_f goes
                          }};

// 1x1x1, a line along each axis, a warp along x +- 1, a block (32x4x4) +- 1, primes, non-cubic.
const std::vector<Extents> kShapes{{1, 1, 1},  {40, 1, 1}, {1, 40, 1}, {1, 1, 40},   {31, 5, 3},
                                   {32, 4, 4}, {33, 9, 5}, {7, 13, 29}, {17, 23, 11}};

}  // namespace

TEST_CASE("small integers are bit-exact for every shape and radius 0 to 3", "[gpu][points=5]") {
  PMPP_REQUIRE_GPU();
  check_small_integers(kConv, kShapes);
}

TEST_CASE("random floats are within the rounding bound", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  check_random_floats(kConv, {{33, 9, 5}, {65, 47, 31}}, {1, 3});
}

TEST_CASE("a one-hot volume reproduces the filter reversed along every axis", "[gpu][points=3]") {
  PMPP_REQUIRE_GPU();
  check_one_hot(kConv, {13, 11, 9}, {6, 5, 4}, 2);
  check_one_hot(kConv, {40, 9, 7}, {32, 4, 3}, 3);  // across the first block's x boundary
}

// No points: what one launch costs against its floor and the solution, with its counters (the filter
// read from device memory).
TEST_CASE("feedback: one large launch against its floor", "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  const ConvLaunch launch{
    [](const std::vector<float>&, int) {},
    [](const float* in, const float* d_f, float* out, Extents e, int r) {
      pmpp::ex07::convolution_3D_basic(in, d_f, out, e.nx, e.ny, e.nz, r);
    }};
  give_conv_feedback(kConv, launch, "ex07.4", "convolution_3D_basic of", {512, 512, 256}, 1, {});
}
