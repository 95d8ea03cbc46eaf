// The named masks, the rounding rule, the built-in picture and the CPU reference of the image
// program. The reference is the GPU kernel's checker, so it is checked here against values worked
// out by hand.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch07_convolution/image_filter/image.hpp"
#include "ch07_convolution/image_filter/image_npp.hpp"
#include "ch07_convolution/image_filter/image_pixel.hpp"
#include "pmpp/cli.hpp"

using namespace pmpp::ch07;

namespace {

Image from_rows(int w, int h, int c, std::vector<int> samples) {
  Image image(w, h, c);
  REQUIRE(samples.size() == image.pixels.size());
  for (std::size_t i = 0; i < samples.size(); ++i) image.pixels[i] = static_cast<std::uint8_t>(samples[i]);
  return image;
}

Mask custom(int w, int h, std::vector<float> weights) { return {"custom", w, h, std::move(weights)}; }

}  // namespace

TEST_CASE("to_pixel clamps to [0, 255] and rounds to nearest, ties to even", "[image][reference]") {
  CHECK(to_pixel(0.0f) == 0);
  CHECK(to_pixel(0.49f) == 0);
  CHECK(to_pixel(0.51f) == 1);
  CHECK(to_pixel(2.5f) == 2);  // tie: to even
  CHECK(to_pixel(3.5f) == 4);  // tie: to even
  CHECK(to_pixel(127.4999f) == 127);
  CHECK(to_pixel(254.5f) == 254);
  CHECK(to_pixel(254.51f) == 255);
  CHECK(to_pixel(255.0f) == 255);
  CHECK(to_pixel(256.0f) == 255);
  CHECK(to_pixel(1e30f) == 255);
  CHECK(to_pixel(std::numeric_limits<float>::infinity()) == 255);
  CHECK(to_pixel(-0.4f) == 0);
  CHECK(to_pixel(-300.0f) == 0);
  CHECK(to_pixel(-std::numeric_limits<float>::infinity()) == 0);
  CHECK(to_pixel(std::numeric_limits<float>::quiet_NaN()) == 0);
}

TEST_CASE("box masks average: equal weights that sum to 1, any odd shape", "[image][filters]") {
  const Mask square = make_filter("box");
  CHECK(square.width == 5);
  CHECK(square.height == 5);
  const Mask wide = make_filter("box", 7, 3);
  CHECK(wide.width == 7);
  CHECK(wide.height == 3);
  REQUIRE(wide.weights.size() == 21);
  for (float w : wide.weights) CHECK(w == static_cast<float>(1.0 / 21));
  CHECK(std::fabs(wide.sum() - 1.0) < 1e-6);
  const Mask only_height = make_filter("box", 0, 9);  // one side given: square
  CHECK(only_height.width == 9);
  CHECK(only_height.height == 9);
  const Mask one = make_filter("box", 1, 1);
  CHECK(one.weights == std::vector<float>{1.0f});
}

TEST_CASE("gaussian masks are binomial, separable, symmetric and sum to exactly 1", "[image][filters]") {
  const Mask g = make_filter("gaussian", 5, 3);  // rows (1 4 6 4 1)/16, columns (1 2 1)/4
  REQUIRE(g.weights.size() == 15);
  CHECK(g.at(0, 0) == 1.0f / 64);
  CHECK(g.at(1, 2) == 12.0f / 64);  // the centre: 6/16 * 2/4
  CHECK(g.at(0, 2) == 6.0f / 64);
  CHECK(g.at(1, 0) == 2.0f / 64);
  CHECK(g.sum() == 1.0);  // powers of two: no rounding at all
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      CHECK(g.at(i, j) == g.at(2 - i, j));
      CHECK(g.at(i, j) == g.at(i, 4 - j));
    }
  const Mask big = make_filter("gaussian", MAX_MASK_DIM, MAX_MASK_DIM);
  CHECK(std::fabs(big.sum() - 1.0) < 1e-6);
  CHECK(big.at(15, 15) > big.at(15, 14));  // peaked at the centre
  CHECK(big.at(0, 0) > 0.0f);
}

TEST_CASE("sharpen and edge are the 3 x 3 masks the help describes", "[image][filters]") {
  const Mask s = make_filter("sharpen");
  CHECK(s.weights == std::vector<float>{0, -1, 0, -1, 5, -1, 0, -1, 0});
  CHECK(s.sum() == 1.0);
  const Mask e = make_filter("edge", 3, 3);
  CHECK(e.weights == std::vector<float>{-1, -1, -1, -1, 8, -1, -1, -1, -1});
  CHECK(e.sum() == 0.0);
  CHECK(filter_names() == std::vector<std::string>{"box", "gaussian", "sharpen", "edge"});
}

TEST_CASE("bad filter requests are usage errors", "[image][filters]") {
  CHECK_THROWS_AS(make_filter("emboss"), pmpp::UsageError);
  CHECK_THROWS_AS(make_filter("box", 4, 3), pmpp::UsageError);
  CHECK_THROWS_AS(make_filter("gaussian", 3, 6), pmpp::UsageError);
  CHECK_THROWS_AS(make_filter("box", MAX_MASK_DIM + 2, 1), pmpp::UsageError);
  CHECK_THROWS_AS(make_filter("box", -1, 1), pmpp::UsageError);
  CHECK_THROWS_AS(make_filter("sharpen", 5, 0), pmpp::UsageError);
  CHECK_THROWS_AS(make_filter("edge", 0, 5), pmpp::UsageError);
  CHECK_THROWS_AS(validate_mask(custom(3, 3, std::vector<float>(8))), pmpp::UsageError);
  CHECK_THROWS_AS(validate_mask(custom(2, 3, std::vector<float>(6))), pmpp::UsageError);
  try {
    make_filter("emboss");
  } catch (const pmpp::UsageError& e) {
    CHECK(std::string(e.what()) == "unknown filter 'emboss'; the filters are box, gaussian, sharpen, edge");
  }
}

TEST_CASE("reference: a one-hot image shows the mask unflipped and untransposed", "[image][reference]") {
  // 7 x 5 image, one sample of 10 at (row 2, col 2); a 5-wide, 3-high mask with weights 1..15.
  // out(row, col) = sum M[i][j] * in(row - 1 + i, col - 2 + j) picks i = 3 - row, j = 4 - col.
  Image image(7, 5, 1);
  image.at(2, 2, 0) = 10;
  std::vector<float> weights(15);
  for (int k = 0; k < 15; ++k) weights[k] = static_cast<float>(k + 1);
  const Mask mask = custom(5, 3, weights);
  const Image out = filter_image_reference(image, mask);
  for (int row = 0; row < 5; ++row)
    for (int col = 0; col < 7; ++col) {
      const int i = 3 - row, j = 4 - col;
      const int want = (i >= 0 && i < 3 && j >= 0 && j < 5) ? 10 * (i * 5 + j + 1) : 0;
      INFO("row " << row << " col " << col);
      CHECK(out.at(row, col, 0) == want);
    }
}

TEST_CASE("reference: clamp-to-edge borders repeat the edge pixel", "[image][reference]") {
  // A mask that picks the right-hand neighbour shifts the image left; the last column repeats.
  const Image row = from_rows(5, 1, 1, {10, 20, 30, 40, 50});
  CHECK(filter_image_reference(row, custom(3, 1, {0, 0, 1})).pixels == std::vector<std::uint8_t>{20, 30, 40, 50, 50});
  CHECK(filter_image_reference(row, custom(3, 1, {1, 0, 0})).pixels == std::vector<std::uint8_t>{10, 10, 20, 30, 40});
  // The same down a column, with a mask 1 wide and 3 high.
  const Image column = from_rows(1, 4, 1, {1, 2, 3, 4});
  CHECK(filter_image_reference(column, custom(1, 3, {0, 0, 1})).pixels == std::vector<std::uint8_t>{2, 3, 4, 4});
  // A flat picture stays flat under every averaging mask, corners included (zero ghost cells would
  // darken them).
  Image flat(13, 7, 3);
  for (auto& v : flat.pixels) v = 200;
  for (const Mask& m : {make_filter("box", 7, 3), make_filter("gaussian", 3, 7), make_filter("box", 31, 31)})
    CHECK(filter_image_reference(flat, m).pixels == flat.pixels);
  // ...and goes black under the edge mask.
  for (auto v : filter_image_reference(flat, make_filter("edge")).pixels) CHECK(v == 0);
  // A 1 x 1 image: every tap reads the one pixel.
  CHECK(filter_image_reference(from_rows(1, 1, 1, {7}), custom(3, 3, {1, 1, 1, 1, 1, 1, 1, 1, 1})).pixels ==
        std::vector<std::uint8_t>{63});
}

TEST_CASE("reference: results clamp at both ends of the pixel range", "[image][reference]") {
  // One bright pixel in a dark 3 x 3 image. Sharpen: 5 x 100 = 500 at the centre (clamps to 255),
  // -100 at its four neighbours (clamps to 0).
  Image image(3, 3, 1);
  image.at(1, 1, 0) = 100;
  CHECK(filter_image_reference(image, make_filter("sharpen")).pixels ==
        std::vector<std::uint8_t>{0, 0, 0, 0, 255, 0, 0, 0, 0});
  // Dark pixel in a bright image: neighbours 5 x 200 - 3 x 200 - 0 = 400 -> 255; the centre 5 x 0 - 800 -> 0.
  Image inverse(3, 3, 1);
  for (auto& v : inverse.pixels) v = 200;
  inverse.at(1, 1, 0) = 0;
  const Image out = filter_image_reference(inverse, make_filter("sharpen"));
  CHECK(out.at(1, 1, 0) == 0);
  CHECK(out.at(0, 1, 0) == 255);
  CHECK(out.at(0, 0, 0) == 200);  // a corner sees only bright pixels: 5 x 200 - 4 x 200
  // Doubling clamps: 100 -> 200, 200 -> 255.
  CHECK(filter_image_reference(from_rows(2, 1, 1, {100, 200}), custom(1, 1, {2})).pixels ==
        std::vector<std::uint8_t>{200, 255});
  // Rounding: 3 x 0.5 = 1.5 -> 2 (tie to even), 5 x 0.5 = 2.5 -> 2, 7 x 0.5 = 3.5 -> 4.
  CHECK(filter_image_reference(from_rows(3, 1, 1, {3, 5, 7}), custom(1, 1, {0.5f})).pixels ==
        std::vector<std::uint8_t>{2, 2, 4});
}

TEST_CASE("reference: channels are filtered independently", "[image][reference]") {
  // RGB picture with only green lit: filtering must leave red and blue at zero.
  Image image(9, 6, 3);
  for (int row = 0; row < 6; ++row)
    for (int col = 0; col < 9; ++col) image.at(row, col, 1) = static_cast<std::uint8_t>(20 * col + row);
  const Image out = filter_image_reference(image, make_filter("gaussian", 5, 3));
  bool others_dark = true, green_lit = false;
  for (int row = 0; row < 6; ++row)
    for (int col = 0; col < 9; ++col) {
      others_dark = others_dark && out.at(row, col, 0) == 0 && out.at(row, col, 2) == 0;
      green_lit = green_lit || out.at(row, col, 1) > 0;
    }
  CHECK(others_dark);
  CHECK(green_lit);
  // And each channel equals the 1-channel result of that channel alone.
  Image green(9, 6, 1);
  for (int row = 0; row < 6; ++row)
    for (int col = 0; col < 9; ++col) green.at(row, col, 0) = image.at(row, col, 1);
  const Image green_out = filter_image_reference(green, make_filter("gaussian", 5, 3));
  for (int row = 0; row < 6; ++row)
    for (int col = 0; col < 9; ++col) CHECK(out.at(row, col, 1) == green_out.at(row, col, 0));
}

TEST_CASE("the built-in picture is deterministic, non-trivial and consistent across channel counts", "[image][picture]") {
  const Image rgb = test_picture(384, 256, 3);
  CHECK(rgb.width == 384);
  CHECK(rgb.height == 256);
  CHECK(rgb.pixels.size() == 384u * 256u * 3u);
  CHECK(test_picture(384, 256, 3).pixels == rgb.pixels);
  const std::set<std::uint8_t> values(rgb.pixels.begin(), rgb.pixels.end());
  CHECK(values.count(0) == 1);
  CHECK(values.count(255) == 1);
  CHECK(values.size() > 200);  // gradients, not a few flat colours

  const Image gray = test_picture(384, 256, 1), rgba = test_picture(384, 256, 4), ga = test_picture(384, 256, 2);
  for (int row = 0; row < 256; row += 17)
    for (int col = 0; col < 384; col += 13) {
      const int luma = (77 * rgb.at(row, col, 0) + 150 * rgb.at(row, col, 1) + 29 * rgb.at(row, col, 2) + 128) >> 8;
      CHECK(gray.at(row, col, 0) == luma);
      CHECK(ga.at(row, col, 0) == luma);
      CHECK(ga.at(row, col, 1) == rgba.at(row, col, 3));
      for (int c = 0; c < 3; ++c) CHECK(rgba.at(row, col, c) == rgb.at(row, col, c));
    }
  for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 9}, std::pair{9, 1}, std::pair{2, 2}}) CHECK(test_picture(w, h, 3).bytes() == 3u * w * h);
  CHECK_THROWS_AS(test_picture(0, 5, 3), pmpp::UsageError);
  CHECK_THROWS_AS(test_picture(5, 5, 5), pmpp::UsageError);
  CHECK_THROWS_AS(test_picture(5, 5, 0), pmpp::UsageError);
}

TEST_CASE("the GPU launcher rejects shapes it cannot handle before touching the device", "[image][launcher]") {
  std::uint8_t in[1] = {0}, out[1] = {0};
  const ImageFilterArgs ok{in, out, 1, 1, 1, 3, 3};
  auto with = [&](auto change) {
    ImageFilterArgs a = ok;
    change(a);
    return a;
  };
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) { a.width = 0; })), std::invalid_argument);
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) { a.height = -1; })), std::invalid_argument);
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) { a.channels = 5; })), std::invalid_argument);
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) { a.channels = 0; })), std::invalid_argument);
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) { a.mask_width = 4; })), std::invalid_argument);
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) { a.mask_height = MAX_MASK_DIM + 2; })),
                  std::invalid_argument);
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) {
                    a.width = 1 << 30;
                    a.channels = 4;
                  })),
                  std::invalid_argument);
  CHECK_THROWS_AS(filter_image(with([](ImageFilterArgs& a) { a.in = nullptr; })), std::invalid_argument);
}

TEST_CASE("NPP's tolerance is one level for every named mask, more where float sums can stray", "[image][npp]") {
  for (const auto& name : filter_names()) {
    const bool sized = name == "box" || name == "gaussian";
    INFO(name);
    CHECK(npp_tolerance_levels(make_filter(name)) == 1);
    if (sized) CHECK(npp_tolerance_levels(make_filter(name, MAX_MASK_DIM, MAX_MASK_DIM)) == 1);
  }
  // One weight of 2^20: each float sum may stray by (1 + 1) 2^-24 x 255 x 2^20 = 31.875 levels,
  // so the two may differ by 63.75, and the bytes by up to floor(1.5 + 63.75) = 65.
  CHECK(npp_tolerance_levels(custom(1, 1, {1048576.0f})) == 65);
}
