// The CPU reference is the checker for every stage, so it is checked against the text first.
#include <catch2/catch_test_macros.hpp>
#include <vector>

#include "ch07_convolution/convolution.hpp"

using namespace pmpp::ch07;

TEST_CASE("1D reference reproduces the text's worked example (section 7.1)", "[reference]") {
  const std::vector<double> x{8, 2, 5, 4, 1, 7, 3}, f{1, 3, 5, 3, 1};
  const auto y = convolution_1D_reference(x, f);
  REQUIRE(y.size() == 7);
  CHECK(y[0] == 51);  // 0*1 + 0*3 + 8*5 + 2*3 + 5*1: two ghost cells
  CHECK(y[1] == 53);
  CHECK(y[2] == 52);
  CHECK(y[3] == 47);
  CHECK(y[6] == 37);  // 1*1 + 3*7 + 5*3 and two ghost cells on the right
}

TEST_CASE("2D reference: one row equals the 1D reference with the filter's middle row", "[reference]") {
  const std::vector<float> x{8, 2, 5, 4, 1, 7, 3};
  std::vector<float> filter(25, 0.0f);
  const float middle[5] = {1, 3, 5, 3, 1};
  for (int j = 0; j < 5; ++j) filter[2 * 5 + j] = middle[j];
  const auto y = convolution_2D_reference(x, filter, 7, 1, 2);
  CHECK(y == std::vector<float>{51, 53, 52, 47, 46, 51, 37});
}

TEST_CASE("2D reference does not flip the filter and treats ghost cells as zero", "[reference]") {
  // A single 1 at (1, 1) of a 3x3 image: the output at (row, col) picks the filter tap that
  // "sees" the 1, F[1 - row + r][1 - col + r].
  std::vector<float> image(9, 0.0f);
  image[4] = 1;
  std::vector<float> filter(9);
  for (int i = 0; i < 9; ++i) filter[i] = static_cast<float>(i + 1);  // asymmetric
  const auto out = convolution_2D_reference(image, filter, 3, 3, 1);
  CHECK(out == std::vector<float>{9, 8, 7, 6, 5, 4, 3, 2, 1});
}
