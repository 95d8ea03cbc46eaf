// The before/after picture of chapter 7: the image program's built-in test picture and what three
// of its masks make of it. The filtered pictures come from filter_image_reference, the CPU checker
// the GPU kernel must match bit for bit (tests/ch07/image_filter/test_image_*.cpp), so they are
// exactly the pixels the GPU produces, computed here without one.
#include <string>
#include <vector>

#include "ch07_convolution/image_filter/image.hpp"
#include "figures.hpp"
#include "png.hpp"
#include "svg.hpp"

namespace pmpp::book {

void write_ch07_image_filters(const std::string& dir) {
  namespace ch07 = pmpp::ch07;
  constexpr int width = 384, height = 256, channels = 3;  // the image program's default picture
  constexpr int gap = 16, caption = 26;
  const ch07::Image picture = ch07::test_picture(width, height, channels);

  struct Panel {
    std::string caption;
    ch07::Image image;
  };
  std::vector<Panel> panels{{"input: the built-in picture, " + std::to_string(width) + " x " + std::to_string(height) + " RGB", picture}};
  for (const ch07::Mask& mask : {ch07::make_filter("gaussian", 9, 9), ch07::make_filter("sharpen"),
                                 ch07::make_filter("edge")})
    panels.push_back({mask.describe(), ch07::filter_image_reference(picture, mask)});

  Svg svg(2 * width + 3 * gap, 2 * (height + caption) + 2 * gap);
  svg.title("A real convolution: the test picture and three filtered versions of it");
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const double x = gap + static_cast<double>(i % 2) * (width + gap);
    const double y = gap + static_cast<double>(i / 2) * (height + caption + gap);
    const ch07::Image& img = panels[i].image;
    svg.raster(x, y, width, height, "data:image/png;base64," + base64(encode_png(img.pixels, img.width, img.height, img.channels)));
    svg.text(x, y + height + 18, panels[i].caption, R"(font-size="13")");
  }
  svg.save(dir + "/ch07_image_filters.svg");
}

}  // namespace pmpp::book
