// The built-in test picture: something to filter when no file is given, with a feature for every
// filter to show (smooth gradients a blur leaves alone, hard edges it softens and the edge filter
// finds, one-pixel stripes a blur erases). Integer arithmetic only, so every machine draws the same
// bytes and a recorded run can be reproduced exactly.
#include <algorithm>
#include <cstdint>

#include "ch07_convolution/image_filter/image.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/parallel.hpp"

namespace pmpp::ch07 {

namespace {

struct Rgb {
  int r, g, b;
};

/// The colour at (x, y) of a w x h picture; later features are drawn over earlier ones.
Rgb colour_at(std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h) {
  const std::int64_t w1 = std::max<std::int64_t>(w - 1, 1), h1 = std::max<std::int64_t>(h - 1, 1);
  // Background: red grows to the right, green downwards, blue along the other diagonal.
  Rgb c{static_cast<int>(255 * x / w1), static_cast<int>(255 * y / h1),
        static_cast<int>(255 - 255 * (x + y) / (w1 + h1))};

  // A thin black diagonal (slope 1) across the left part: one pixel wide, a test for edge filters.
  if (x - y == w / 3 && y < 3 * h / 4) c = {0, 0, 0};
  // A filled yellow disc on the left.
  const std::int64_t dx = x - w / 4, dy = y - h / 2, radius = std::max<std::int64_t>(1, std::min(w, h) / 5);
  if (dx * dx + dy * dy <= radius * radius) c = {255, 220, 0};
  // A white rectangle outline, two pixels thick, in the middle.
  const std::int64_t left = 2 * w / 5, right = 3 * w / 5, top = h / 3, bottom = 2 * h / 3;
  const bool inside = x >= left && x < right && y >= top && y < bottom;
  const bool interior = x >= left + 2 && x < right - 2 && y >= top + 2 && y < bottom - 2;
  if (inside && !interior) c = {255, 255, 255};
  // A black-and-white checkerboard on the right.
  const std::int64_t square = std::max<std::int64_t>(2, w / 48);
  if (x >= 3 * w / 4 && y < 3 * h / 4) {
    const int v = ((x / square + y / square) % 2) ? 255 : 0;
    c = {v, v, v};
  }
  // A band of vertical stripes at the bottom, 1, 2, 3 and 4 pixels wide from left to right.
  if (y >= 7 * h / 8) {
    const std::int64_t period = 1 + 4 * x / w;
    const int v = ((x / period) % 2) ? 255 : 0;
    c = {v, v, v};
  }
  return c;
}

}  // namespace

Image test_picture(int width, int height, int channels) {
  if (width < 1 || height < 1 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE)
    throw UsageError("the test picture needs a width and height in [1, " + std::to_string(MAX_IMAGE_SIDE) + "]");
  if (channels < 1 || channels > MAX_IMAGE_CHANNELS)
    throw UsageError("the test picture has 1 to " + std::to_string(MAX_IMAGE_CHANNELS) + " channels, not " +
                     std::to_string(channels));
  Image image(width, height, channels);
  parallel_for(height, [&](std::int64_t first_row, std::int64_t last_row) {
    for (std::int64_t y = first_row; y < last_row; ++y)
      for (std::int64_t x = 0; x < width; ++x) {
        const Rgb c = colour_at(x, y, width, height);
        const int gray = (77 * c.r + 150 * c.g + 29 * c.b + 128) >> 8;  // Rec. 601 luma, weights sum to 256
        const int alpha = 127 + static_cast<int>(128 * y / std::max(height - 1, 1));
        const int values[4][4] = {{gray}, {gray, alpha}, {c.r, c.g, c.b}, {c.r, c.g, c.b, alpha}};
        for (int ch = 0; ch < channels; ++ch)
          image.at(static_cast<int>(y), static_cast<int>(x), ch) = static_cast<std::uint8_t>(values[channels - 1][ch]);
      }
  });
  return image;
}

}  // namespace pmpp::ch07
