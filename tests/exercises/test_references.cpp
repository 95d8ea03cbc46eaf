// The CPU references the exercise tests grade against are checked first: against the text's worked
// example, against hand-built one-hot results, and against each other (separable filters).
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <vector>

#include "references.hpp"

using namespace ex_test;

TEST_CASE("1D reference reproduces the text's worked example (section 7.1)", "[host][reference]") {
  const std::vector<float> x{8, 2, 5, 4, 1, 7, 3}, f{1, 3, 5, 3, 1};
  const auto y = convolution_reference(x, {7}, f, 2);
  // y[1] = 1*0 + 3*8 + 5*2 + 3*5 + 1*4 = 53 as in the text; y[0] and y[6] have two ghost cells each.
  CHECK(y == std::vector<double>{51, 53, 52, 47, 46, 51, 37});
}

TEST_CASE("the reference does not flip the filter, in 1, 2 and 3 dimensions", "[host][reference]") {
  // A single 1 at the centre of a 3x3x3 volume: out(p) = f[j] where p - r + j = centre, so the output
  // is the filter reversed along every axis.
  std::vector<float> in(27, 0.0f);
  in[13] = 1.0f;
  const auto f = counting_filter(27);
  const auto out = convolution_reference(in, {3, 3, 3}, f, 1, 1, 1);
  for (int i = 0; i < 27; ++i) CHECK(out[i] == f[26 - i]);
  // 2D: the middle plane alone, with the 3x3 filter.
  const std::vector<float> plane(in.begin() + 9, in.begin() + 18);
  const auto out2 = convolution_reference(plane, {3, 3, 1}, counting_filter(9), 1, 1);
  for (int i = 0; i < 9; ++i) CHECK(out2[i] == 9 - i);
}

TEST_CASE("a separable 3D filter equals three 1D passes, ghost cells included", "[host][reference]") {
  const Extents e{7, 5, 4};
  std::vector<float> in(e.count());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(static_cast<int>(i * 37 % 11) - 5);
  const std::vector<float> a{1, -2, 3}, b{2, 1, -1, 4, 1}, c{-1, 1, 2};  // radii 1, 2, 1 along x, y, z
  std::vector<float> f;
  for (float ck : c)
    for (float bj : b)
      for (float ai : a) f.push_back(ck * bj * ai);
  const auto direct = convolution_reference(in, e, f, 1, 2, 1);

  // x pass, then y, then z: a 1D filter along an axis is a 3D filter of extent 1 on the others.
  auto to_float = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  const auto along_x = convolution_reference(in, e, a, 1, 0, 0);
  const auto along_y = convolution_reference(to_float(along_x), e, b, 0, 2, 0);
  const auto along_z = convolution_reference(to_float(along_y), e, c, 0, 0, 1);
  CHECK(along_z == direct);  // small integers: every value is exact in float and in double
}

TEST_CASE("the two-pass model adds in the specified order", "[host][reference]") {
  // One block of 4 threads over 8 inputs: thread t holds x[t] + x[t + 4], then the tree adds thread
  // 2, 3 into 0, 1, then 1 into 0.
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(two_pass_block(x.data(), 8, 0, 1, 4) == 36.0f);
  // Float rounding shows the order. Thread 0's 2^24 + 1 rounds to 2^24 (the 1 is lost); threads 1..3
  // hold 1 + 1 = 2; the tree gives (2^24 + 2) + (2 + 2) = 2^24 + 6, where the exact sum is 2^24 + 7.
  const float big = 16777216.0f;
  const std::vector<float> y{big, 1, 1, 1, 1, 1, 1, 1};
  CHECK(two_pass_block(y.data(), 8, 0, 1, 4) == big + 6.0f);
  // A whole two-pass sum of small integers equals the exact sum, whatever the order.
  std::vector<float> z(70001);
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = static_cast<float>(static_cast<int>(i % 9) - 4);
  CHECK(two_pass_model(z, 256, 1024) == sum_reference(z));
  CHECK(two_pass_model({}, 256, 1024) == 0.0f);
}

TEST_CASE("max reference: the identity of max is minus infinity", "[host][reference]") {
  CHECK(max_reference({}) == -INFINITY);
  CHECK(max_reference({-3, -1, -2}) == -1);
}
