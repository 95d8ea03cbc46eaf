// An example hidden test for exercise 7.1 (see ../README.md): other lengths, seeds and radii than the
// public tests, so a submission tuned to the public cases does not pass by accident.
#include <vector>

#include "ch07/conv1d_basic.hpp"
#include "conv_checks.hpp"

using namespace ex_test;

namespace {

const ConvUnderTest kConv{1, 8, [](const float* x, const std::vector<float>& f, float* y, Extents e, int r) {
                            Framed d_f(f, kNaN);
                            pmpp::ex07::convolution_1D_basic(x, d_f.data(), y, e.nx, r);
                            CUDA_CHECK(cudaDeviceSynchronize());
                          }};

}  // namespace

TEST_CASE("hidden: other lengths and every radius", "[gpu][points=2]") {
  PMPP_REQUIRE_GPU();
  check_small_integers(kConv, lengths({5, 63, 64, 65, 511, 513, 7919}));
}

TEST_CASE("hidden: a radius larger than the array", "[gpu][points=1]") {
  PMPP_REQUIRE_GPU();
  check_one_hot(kConv, {4, 1, 1}, {3, 0, 0}, 8);
}
