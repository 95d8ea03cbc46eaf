// Exercise 7.5, tiled 3D convolution with the filter in constant memory: the graded tests (points in
// the tags). Run against the starter code (label "exercise") and against the solution ("solution").
#include <vector>

#include "ch07/conv3d_tiled.hpp"
#include "conv_checks.hpp"

using namespace ex_test;
using namespace pmpp::ex07;

namespace {

const ConvUnderTest kConv{3, MAX_RADIUS_3D, [](const float* in, const std::vector<float>& f, float* out, Extents e, int r) {
                            convolution_tiled_3D_const_mem_upload_filter(f.data(), r);
                            convolution_tiled_3D_const_mem(in, out, e.nx, e.ny, e.nz, r);
                          }};

// 1x1x1, a line along each axis, whole output tiles (6 for radius 1, 4 for 2, 2 for 3) and one voxel
// more or less, primes, non-cubic.
const std::vector<Extents> kShapes{{1, 1, 1},  {20, 1, 1},  {1, 20, 1},  {1, 1, 20},   {6, 6, 6},  {7, 7, 7},
                                   {5, 4, 3},  {12, 12, 12}, {13, 11, 9}, {31, 7, 5},  {17, 23, 11}};

}  // namespace

TEST_CASE("small integers are bit-exact for every shape and radius 0 to 3", "[gpu][points=8]") {
  PMPP_REQUIRE_GPU();
  check_small_integers(kConv, kShapes);
}

TEST_CASE("random floats are within the rounding bound", "[gpu][points=4]") {
  PMPP_REQUIRE_GPU();
  check_random_floats(kConv, {{13, 11, 9}, {65, 47, 31}}, {1, MAX_RADIUS_3D});
}

TEST_CASE("a one-hot volume reproduces the filter reversed along every axis", "[gpu][points=4]") {
  PMPP_REQUIRE_GPU();
  check_one_hot(kConv, {13, 11, 9}, {6, 5, 4}, 2);
  // On the corner of a radius-3 output tile (2 voxels): eight blocks load the voxel into their halos.
  check_one_hot(kConv, {15, 13, 11}, {6, 6, 4}, MAX_RADIUS_3D);
}

TEST_CASE("uploading a new filter changes the next result, and a second run repeats it", "[gpu][points=4]") {
  PMPP_REQUIRE_GPU();
  check_new_filter_takes_effect(kConv, {23, 19, 17}, {2, 0, MAX_RADIUS_3D, 1});
}

// No points: what one launch costs against its floor and the solution, with its counters. The filter
// goes to constant memory before every run, untimed (the text: consecutive threads read a tile from
// shared memory, conflict-free).
TEST_CASE("feedback: one large launch against its floor", "[gpu][feedback]") {
  PMPP_REQUIRE_GPU();
  const ConvLaunch launch{
    [](const std::vector<float>& f, int r) {
      convolution_tiled_3D_const_mem_upload_filter(f.data(), r);
    },
    [](const float* in, const float*, float* out, Extents e, int r) {
      convolution_tiled_3D_const_mem(in, out, e.nx, e.ny, e.nz, r);
    }};
  give_conv_feedback(kConv, launch, "ex07.5", "convolution_tiled_3D_const_mem of", {512, 512, 256}, 1,
                     {{"bank_conflicts", 0}});
}
