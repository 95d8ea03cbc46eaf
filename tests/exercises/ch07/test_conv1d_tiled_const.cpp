// Exercise 7.2, tiled 1D convolution with the filter in constant memory: the graded tests (points in
// the tags). Run against the starter code (label "exercise") and against the solution ("solution").
#include <vector>

#include "ch07/conv1d_tiled_const.hpp"
#include "conv_checks.hpp"

using namespace ex_test;
using namespace pmpp::ex07;

namespace {

const ConvUnderTest kConv{1, MAX_RADIUS_1D, [](const float* x, const std::vector<float>& f, float* y, Extents e, int r) {
                            convolution_tiled_1D_const_mem_upload_filter(f.data(), r);
                            convolution_tiled_1D_const_mem(x, y, e.nx, r);
                          }};

}  // namespace

TEST_CASE("small integers are bit-exact for every length and every radius", "[gpu][points=5]") {
  PMPP_REQUIRE_GPU();
  // Around the input tile (256) and the smallest output tile (256 - 2 * 32 = 192), primes, and
  // lengths shorter than the filter.
  check_small_integers(kConv, lengths({1, 2, 31, 32, 33, 191, 192, 193, 255, 256, 257, 1000, 4099}));
}

TEST_CASE("random floats are within the rounding bound", "[gpu][points=3]") {
  PMPP_REQUIRE_GPU();
  check_random_floats(kConv, lengths({257, 4099, 100003}), {1, 5, MAX_RADIUS_1D});
}

TEST_CASE("a one-hot input reproduces the filter reversed", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  check_one_hot(kConv, {101, 1, 1}, {50, 0, 0}, 4);
  // At a tile boundary: the halo the neighbouring block loads must hold the same element.
  check_one_hot(kConv, {1000, 1, 1}, {IN_TILE_DIM_1D - 2 * 9, 0, 0}, 9);
}

TEST_CASE("uploading a new filter changes the next result", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  check_new_filter_takes_effect(kConv, {1500, 1, 1}, {5, 2, MAX_RADIUS_1D, 5});
}

TEST_CASE("more than 2^31 elements: indices are 64-bit", "[gpu][large][points=3]") {
  PMPP_REQUIRE_GPU();
  check_1d_beyond_2_31(
      [](const float* x, const std::vector<float>& f, float* y, std::int64_t n, int r) {
        convolution_tiled_1D_const_mem_upload_filter(f.data(), r);
        convolution_tiled_1D_const_mem(x, y, n, r);
      },
      3);
}

// No points: what one launch costs against its floor and the solution, with its counters. The filter
// goes to constant memory before every run, untimed (the text: consecutive threads read a tile from
// shared memory, conflict-free).
TEST_CASE("feedback: one large launch against its floor", "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  const ConvLaunch launch{
    [](const std::vector<float>& f, int r) {
      convolution_tiled_1D_const_mem_upload_filter(f.data(), r);
    },
    [](const float* x, const float*, float* y, Extents e, int r) {
      convolution_tiled_1D_const_mem(x, y, e.nx, r);
    }};
  give_conv_feedback(kConv, launch, "ex07.2", "convolution_tiled_1D_const_mem of", {1 << 26, 1, 1}, 3,
                     {{"bank_conflicts", 0}});
}
