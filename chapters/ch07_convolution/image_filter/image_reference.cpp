// CPU reference for the image kernel: the definition in image.hpp, written for clarity.
//
// Unlike the chapter's float reference (which sums in double and is compared with a tolerance),
// this one must agree with the GPU bit for bit, because its result is an 8-bit pixel: a sum of
// 127.4999 on one side and 127.5001 on the other becomes 127 and 128. So it sums in float in the
// kernel's order, one correctly rounded fused multiply-add per tap, and rounds with the same
// to_pixel(). Any order would be as *correct*; only the same order is *identical*.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ch07_convolution/image_filter/image.hpp"
#include "ch07_convolution/image_filter/image_pixel.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/parallel.hpp"

namespace pmpp::ch07 {

Image filter_image_reference(const Image& in, const Mask& mask) {
  validate_mask(mask);
  if (in.width < 1 || in.height < 1 || in.channels < 1 || in.channels > MAX_IMAGE_CHANNELS ||
      in.pixels.size() != in.bytes())
    throw UsageError("filter_image_reference: the image's shape and pixels do not agree");
  const int rx = mask.width / 2, ry = mask.height / 2;
  Image out(in.width, in.height, in.channels);
  parallel_for(in.height, [&](std::int64_t first_row, std::int64_t last_row) {
    for (std::int64_t row = first_row; row < last_row; ++row)
      for (int col = 0; col < in.width; ++col)
        for (int c = 0; c < in.channels; ++c) {
          float sum = 0.0f;
          for (int i = 0; i < mask.height; ++i) {
            // Clamp-to-edge: a tap above or below the image reads the first or last row.
            const int in_row = static_cast<int>(std::clamp<std::int64_t>(row - ry + i, 0, in.height - 1));
            for (int j = 0; j < mask.width; ++j) {
              const int in_col = std::clamp(col - rx + j, 0, in.width - 1);
              sum = std::fma(mask.at(i, j), static_cast<float>(in.at(in_row, in_col, c)), sum);
            }
          }
          out.at(static_cast<int>(row), col, c) = to_pixel(sum);
        }
  });
  return out;
}

}  // namespace pmpp::ch07
