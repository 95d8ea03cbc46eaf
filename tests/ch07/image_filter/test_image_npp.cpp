// The image program's NPP row (nppiFilterBorder32f_8u_CnR, replicated borders) computes the program's
// filter: clamp-to-edge borders, unflipped mask, within npp_tolerance_levels() of the CPU reference,
// on small odd-sized images with 1 to 4 channels. Skips without a GPU or without NPP in this build.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "ch07_convolution/image_filter/image.hpp"
#include "ch07_convolution/image_filter/image_npp.hpp"
#include "ch07_convolution/npp_support.hpp"
#include "gpu_test.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/random.hpp"

using namespace pmpp::ch07;

namespace {

Image random_image(int w, int h, int c, std::uint64_t seed) {
  Image image(w, h, c);
  const auto values = pmpp::random_small_ints(image.bytes(), seed, 0, 255);
  for (std::size_t i = 0; i < values.size(); ++i) image.pixels[i] = static_cast<std::uint8_t>(values[i]);
  return image;
}

/// Weights 1..w*h scaled to sum to 1: no symmetry, so a mask NPP applied flipped, transposed or with
/// its anchor off centre would move every output.
Mask ramp_mask(int w, int h) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  const float sum = static_cast<float>(n * (n + 1) / 2);  // 1 + 2 + ... + n
  std::vector<float> weights(n);
  for (std::size_t k = 0; k < n; ++k) weights[k] = static_cast<float>(k + 1) / sum;
  return {"ramp", w, h, weights};
}

/// The largest |a - b| over all samples.
int largest_difference(const Image& a, const Image& b) {
  int worst = 0;
  for (std::size_t i = 0; i < a.pixels.size(); ++i) worst = std::max(worst, std::abs(a.pixels[i] - b.pixels[i]));
  return worst;
}

/// NPP's result for @p in, run twice over output filled with 0x00 and with 0xFF: the two runs must
/// agree (else some byte was never written) and the input must be left as it was.
Image run_npp(const Image& in, const Mask& mask) {
  pmpp::DeviceBuffer<std::uint8_t> d_in(in.pixels), d_out(in.bytes());
  NppImageFilter npp(in.width, in.height, in.channels, mask);
  Image runs[2] = {Image(in.width, in.height, in.channels), Image(in.width, in.height, in.channels)};
  const int poisons[2] = {0x00, 0xFF};
  for (int r = 0; r < 2; ++r) {
    CUDA_CHECK(cudaMemset(d_out.data(), poisons[r], d_out.bytes()));
    npp.run(d_in.data(), d_out.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    runs[r].pixels = d_out.to_host();
  }
  CHECK(runs[0].pixels == runs[1].pixels);
  CHECK(d_in.to_host() == in.pixels);
  return runs[0];
}

}  // namespace

TEST_CASE("NPP's row matches the image reference within its tolerance on odd sizes", "[gpu][image][npp]") {
  PMPP_REQUIRE_GPU();
  if (!npp_available()) SKIP(npp_description());
  std::uint64_t seed = 700;
  // Odd sizes, a single row and a single column (every tap replicated on one axis), and an image
  // narrower than the mask.
  for (auto [w, h] : {std::pair{37, 23}, std::pair{65, 17}, std::pair{1, 9}, std::pair{11, 1}, std::pair{3, 5}})
    for (int c = 1; c <= MAX_IMAGE_CHANNELS; ++c) {
      const Image in = random_image(w, h, c, ++seed);
      for (const Mask& mask : {make_filter("gaussian", 5, 3), make_filter("box", 3, 7), make_filter("sharpen"),
                               make_filter("edge"), ramp_mask(5, 3), ramp_mask(3, 7)}) {
        INFO(w << "x" << h << "x" << c << " image, mask " << mask.name << " " << mask.width << "x" << mask.height);
        const Image want = filter_image_reference(in, mask);
        const int levels = npp_tolerance_levels(mask);
        CHECK(levels == 1);
        CHECK(largest_difference(run_npp(in, mask), want) <= levels);
      }
    }
}

TEST_CASE("NPP's row fails a mask applied flipped: the tolerance cannot hide it", "[gpu][image][npp]") {
  PMPP_REQUIRE_GPU();
  if (!npp_available()) SKIP(npp_description());
  // The ramp mask reversed is the ramp applied flipped both ways; on a random 3-channel image the two
  // filters differ by far more than the tolerance, so the check above would catch a missing reversal.
  const Image in = random_image(37, 23, 3, 801);
  Mask flipped = ramp_mask(5, 3);
  std::reverse(flipped.weights.begin(), flipped.weights.end());
  const Image got = run_npp(in, ramp_mask(5, 3));
  CHECK(largest_difference(got, filter_image_reference(in, ramp_mask(5, 3))) <= 1);
  CHECK(largest_difference(got, filter_image_reference(in, flipped)) > 8);
}
