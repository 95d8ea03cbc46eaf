// Exercise 7.3, tiled 2D convolution with output-tile-sized blocks: the graded tests (points in the
// tags). Run against the starter code (label "exercise") and against the solution ("solution").
#include <vector>

#include "ch07/conv2d_output_tiled.hpp"
#include "conv_checks.hpp"

using namespace ex_test;
using namespace pmpp::ex07;

namespace {

const ConvUnderTest kConv{2, MAX_RADIUS_2D, [](const float* in, const std::vector<float>& f, float* out, Extents e, int r) {
                            convolution_output_tiled_2D_const_mem_upload_filter(f.data(), r);
                            convolution_output_tiled_2D_const_mem(in, out, e.nx, e.ny, r);
                          }};

// 1x1, single rows and columns, a tile (32) +- 1, primes, non-square both ways, several tiles.
const std::vector<Extents> kShapes{{1, 1, 1},   {1, 37, 1},  {37, 1, 1}, {31, 31, 1},  {32, 32, 1},  {33, 33, 1},
                                   {28, 29, 1}, {17, 95, 1}, {95, 17, 1}, {64, 3, 1}, {127, 61, 1}, {200, 131, 1}};

}  // namespace

TEST_CASE("small integers are bit-exact for every shape and radius 0 to 8", "[gpu][points=7]") {
  PMPP_REQUIRE_GPU();
  check_small_integers(kConv, kShapes);
}

TEST_CASE("random floats are within the rounding bound", "[gpu][points=3]") {
  PMPP_REQUIRE_GPU();
  check_random_floats(kConv, {{33, 33, 1}, {200, 131, 1}, {1025, 517, 1}}, {1, 4, MAX_RADIUS_2D});
}

TEST_CASE("a one-hot image reproduces the filter rotated by 180 degrees", "[gpu][points=3]") {
  PMPP_REQUIRE_GPU();
  check_one_hot(kConv, {40, 35, 1}, {20, 17, 0}, 2);
  // On a tile corner, with the widest filter: four blocks load the pixel into their halos.
  check_one_hot(kConv, {70, 70, 1}, {32, 31, 0}, MAX_RADIUS_2D);
}

TEST_CASE("uploading a new filter changes the next result", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  check_new_filter_takes_effect(kConv, {97, 61, 1}, {3, 1, MAX_RADIUS_2D, 3});
}

// No points: what one launch costs against its floor and the solution, with its counters. The filter
// goes to constant memory before every run, untimed (the text: consecutive threads read a tile from
// shared memory, conflict-free).
TEST_CASE("feedback: one large launch against its floor", "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  const ConvLaunch launch{
    [](const std::vector<float>& f, int r) {
      convolution_output_tiled_2D_const_mem_upload_filter(f.data(), r);
    },
    [](const float* in, const float*, float* out, Extents e, int r) {
      convolution_output_tiled_2D_const_mem(in, out, e.nx, e.ny, r);
    }};
  give_conv_feedback(kConv, launch, "ex07.3", "convolution_output_tiled_2D_const_mem of", {8192, 8192, 1}, 2,
                     {{"bank_conflicts", 0}});
}
