// The image kernel against the CPU reference, bit for bit: awkward sizes, 1 to 4 channels, square and
// non-square masks (the compiled square sizes and the run-time-loop path), asymmetric masks, masks
// that expose any change in the order of the taps, the named filters, misaligned buffers (the byte
// path), more tile rows than the grid has blocks, and an image over 2^31 bytes.
//
// Output bytes cannot be poisoned with a value no pixel can take (every byte is a valid pixel), so
// each run happens twice, over output filled with 0x00 and then with 0xFF: a byte the kernel skips
// keeps a different value in the two runs and cannot match the reference both times.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ch07_convolution/image_filter/image.hpp"
#include "ch07_convolution/image_filter/image_pixel.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/parallel.hpp"
#include "pmpp/random.hpp"

using namespace pmpp::ch07;

namespace {

constexpr std::size_t kGuard = 256;  // bytes of poison before and after the output
constexpr int kPoisons[2] = {0x00, 0xFF};

Image random_image(int w, int h, int c, std::uint64_t seed) {
  Image image(w, h, c);
  const auto values = pmpp::random_small_ints(image.bytes(), seed, 0, 255);
  for (std::size_t i = 0; i < values.size(); ++i) image.pixels[i] = static_cast<std::uint8_t>(values[i]);
  return image;
}

/// Random weights in [lo, hi) times @p scale: asymmetric, so a transposed or flipped mask shows.
Mask random_mask(int w, int h, std::uint64_t seed, float lo, float hi, float scale) {
  auto weights = pmpp::random_floats(static_cast<std::size_t>(w) * h, seed, lo, hi);
  for (float& v : weights) v *= scale;
  return {"random", w, h, weights};
}

/// Filter @p in on the GPU twice (over 0x00 and over 0xFF), checking the guard bands each time, that
/// the runs agree, and that the input is unchanged; returns the result. The input starts
/// @p in_offset bytes and the output kGuard + @p out_offset bytes into their allocations: an offset
/// that is not a multiple of 16 takes the kernel's byte-by-byte path.
Image run_on_gpu(const Image& in, const Mask& mask, std::size_t in_offset = 0, std::size_t out_offset = 0) {
  upload_image_mask(mask);
  const std::size_t before = kGuard + out_offset;
  pmpp::DeviceBuffer<std::uint8_t> d_in(in.bytes() + in_offset), d_out(before + in.bytes() + kGuard);
  CUDA_CHECK(cudaMemset(d_in.data(), 0, in_offset));
  CUDA_CHECK(cudaMemcpy(d_in.data() + in_offset, in.pixels.data(), in.bytes(), cudaMemcpyHostToDevice));
  Image runs[2] = {Image(in.width, in.height, in.channels), Image(in.width, in.height, in.channels)};
  for (int r = 0; r < 2; ++r) {
    CUDA_CHECK(cudaMemset(d_out.data(), kPoisons[r], d_out.bytes()));
    filter_image({d_in.data() + in_offset, d_out.data() + before, in.width, in.height, in.channels, mask.width,
                  mask.height});
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto all = d_out.to_host();
    std::size_t guards_written = 0;
    for (std::size_t i = 0; i < before; ++i) guards_written += all[i] != kPoisons[r];
    for (std::size_t i = before + in.bytes(); i < all.size(); ++i) guards_written += all[i] != kPoisons[r];
    CHECK(guards_written == 0);
    runs[r].pixels.assign(all.begin() + static_cast<std::ptrdiff_t>(before),
                          all.begin() + static_cast<std::ptrdiff_t>(before + in.bytes()));
  }
  CHECK(runs[0].pixels == runs[1].pixels);  // else some byte was never written
  const auto input_after = d_in.to_host();
  CHECK(std::equal(in.pixels.begin(), in.pixels.end(), input_after.begin() + static_cast<std::ptrdiff_t>(in_offset)));
  return runs[0];
}

/// "PASS: ..." or the failure summary with the first bad sample as (row, col, channel).
std::string compare_images(const Image& got, const Image& want) {
  const auto result = pmpp::compare(got.pixels, want.pixels, pmpp::Tolerance::exact());
  std::string text = result.summary();
  if (!result.first_bad.empty()) {
    const std::size_t i = result.first_bad.front(), pixel = i / want.channels;
    text += "; first at row " + std::to_string(pixel / want.width) + ", col " + std::to_string(pixel % want.width) +
            ", channel " + std::to_string(i % want.channels);
  }
  return text;
}

void check_against_reference(const Image& in, const Mask& mask, std::size_t in_offset = 0, std::size_t out_offset = 0) {
  const Image want = filter_image_reference(in, mask);
  const Image got = run_on_gpu(in, mask, in_offset, out_offset);
  const std::string summary = compare_images(got, want);
  INFO(summary);
  CHECK(summary.rfind("PASS", 0) == 0);
}

// 1 x 1, single rows and columns, 32 and one either side, an output tile (64 x 32 pixels) plus one
// both ways, primes, non-square both ways, several tiles with whole-word rows (width % 4 == 0).
const std::vector<std::pair<int, int>> kSizes{{1, 1},   {1, 37},   {37, 1},   {31, 31},   {32, 32},   {11, 9},
                                              {65, 33}, {17, 95}, {95, 17}, {127, 61}, {200, 131}, {128, 70}};

/// The same taps as filter_image_reference(), but each mask row added right to left: as correct as
/// the reference, and different from it wherever the order shows.
Image filter_columns_reversed(const Image& in, const Mask& mask) {
  Image out(in.width, in.height, in.channels);
  const int rx = mask.width / 2, ry = mask.height / 2;
  for (int row = 0; row < in.height; ++row)
    for (int col = 0; col < in.width; ++col)
      for (int c = 0; c < in.channels; ++c) {
        float sum = 0.0f;
        for (int i = 0; i < mask.height; ++i)
          for (int j = mask.width - 1; j >= 0; --j)
            sum = std::fma(mask.at(i, j),
                           static_cast<float>(in.at(std::clamp(row - ry + i, 0, in.height - 1),
                                                    std::clamp(col - rx + j, 0, in.width - 1), c)),
                           sum);
        out.at(row, col, c) = to_pixel(sum);
      }
  return out;
}

/// Small random weights, plus 2^20 near the start of the mask and -2^20 near its end. On a flat patch
/// the two cancel, but only after every tap between them was added to a sum near 2^20 x pixel and
/// rounded there: the result keeps the rounding of exactly the taps that came between, in the order
/// they came.
Mask cancelling_mask(int w, int h, std::uint64_t seed) {
  Mask mask = random_mask(w, h, seed, 0.0f, 0.05f, 1.0f);
  mask.name = "cancelling";
  mask.weights[w > 1 ? 1 : 0] = 1048576.0f;
  mask.weights[mask.weights.size() - (w > 1 ? 2 : 1)] = -1048576.0f;
  return mask;
}

}  // namespace

TEST_CASE("image kernel matches the reference bit for bit: sizes x channels x masks", "[gpu][image]") {
  PMPP_REQUIRE_GPU();
  std::uint64_t seed = 100;
  for (auto [w, h] : kSizes)
    for (int c = 1; c <= MAX_IMAGE_CHANNELS; ++c) {
      const Image in = random_image(w, h, c, ++seed);
      // Named masks, mild random masks (sums near 0.5: mostly in range, so rounding is exercised)
      // and strong ones (most sums clamp at 0 or 255), in shapes a transposed kernel would get wrong.
      const std::vector<Mask> masks{
          make_filter("box", 5, 5),       make_filter("gaussian", 7, 3),
          make_filter("sharpen"),         make_filter("edge"),
          random_mask(1, 1, seed, 0.2f, 1.5f, 1.0f),
          random_mask(5, 3, seed, -0.5f, 1.0f, 2.0f / 15),
          random_mask(3, 5, seed, -0.5f, 1.0f, 2.0f / 15),
          random_mask(7, 1, seed, -0.5f, 1.0f, 2.0f / 7),
          random_mask(1, 9, seed, -0.5f, 1.0f, 2.0f / 9),
          random_mask(9, 7, seed, -1.0f, 1.0f, 1.0f),
          random_mask(7, 7, seed, -0.5f, 1.0f, 2.0f / 49),
          random_mask(9, 9, seed, -0.5f, 1.0f, 2.0f / 81),
          random_mask(MAX_MASK_DIM, MAX_MASK_DIM, seed, -0.5f, 1.0f, 2.0f / (MAX_MASK_DIM * MAX_MASK_DIM)),
      };
      for (const Mask& mask : masks) {
        INFO(w << "x" << h << "x" << c << " image, mask " << mask.name << " " << mask.width << "x" << mask.height);
        check_against_reference(in, mask);
      }
    }
}

TEST_CASE("image kernel: an asymmetric mask on a one-hot image lands where the definition says", "[gpu][image]") {
  PMPP_REQUIRE_GPU();
  // 4 channels, one sample of 10 at (row 4, col 6, channel 2) of a 13 x 9 image; a 5-wide, 3-high
  // mask with weights 1..15. out(row, col, 2) = 10 * M[5 - row][8 - col]; every other channel stays 0.
  Image image(13, 9, 4);
  image.at(4, 6, 2) = 10;
  std::vector<float> weights(15);
  for (int k = 0; k < 15; ++k) weights[k] = static_cast<float>(k + 1);
  const Mask mask{"one to fifteen", 5, 3, weights};
  const Image got = run_on_gpu(image, mask);
  for (int row = 0; row < 9; ++row)
    for (int col = 0; col < 13; ++col)
      for (int c = 0; c < 4; ++c) {
        const int i = 5 - row, j = 8 - col;
        const bool hit = c == 2 && i >= 0 && i < 3 && j >= 0 && j < 5;
        INFO("row " << row << " col " << col << " channel " << c);
        CHECK(got.at(row, col, c) == (hit ? 10 * (i * 5 + j + 1) : 0));
      }
}

TEST_CASE("image kernel adds each sample's taps in the reference's order", "[gpu][image]") {
  PMPP_REQUIRE_GPU();
  // The built-in picture has flat areas, where a cancelling mask leaves mid-range values that depend
  // on the order of the taps. Compiled square sizes and the run-time-loop shapes.
  for (int c : {1, 3, 4}) {
    const Image picture = test_picture(160, 96, c);
    for (auto [w, h] : {std::pair{3, 3}, std::pair{5, 5}, std::pair{9, 9}, std::pair{5, 3}, std::pair{3, 7}}) {
      const Mask mask = cancelling_mask(w, h, 1000 + 10 * w + h);
      INFO(c << " channels, cancelling mask " << w << "x" << h);
      const Image want = filter_image_reference(picture, mask);
      // The test can fail: another order of the same taps changes many bytes.
      const Image other = filter_columns_reversed(picture, mask);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < want.pixels.size(); ++i) differ += want.pixels[i] != other.pixels[i];
      CHECK(differ > want.pixels.size() / 100);
      const std::string summary = compare_images(run_on_gpu(picture, mask), want);
      INFO(summary);
      CHECK(summary.rfind("PASS", 0) == 0);
    }
  }
}

TEST_CASE("image kernel: misaligned buffers take the byte path and give the same bytes", "[gpu][image]") {
  PMPP_REQUIRE_GPU();
  // Widths that are multiples of 4 would move whole words; offsets of 1 to 3 bytes (and 4, aligned
  // to a word but not to 16 bytes) make the launcher choose bytes instead.
  std::uint64_t seed = 500;
  for (int c = 1; c <= MAX_IMAGE_CHANNELS; ++c)
    for (auto [in_offset, out_offset] : {std::pair<std::size_t, std::size_t>{1, 0}, {0, 3}, {2, 1}, {4, 4}}) {
      const Image in = random_image(132, 45, c, ++seed);
      INFO(c << " channels, input offset " << in_offset << ", output offset " << out_offset);
      check_against_reference(in, make_filter("gaussian", 5, 5), in_offset, out_offset);
      check_against_reference(in, random_mask(5, 3, seed, -0.5f, 1.0f, 2.0f / 15), in_offset, out_offset);
    }
}

TEST_CASE("image kernel covers more tile rows than the grid has blocks", "[gpu][image]") {
  PMPP_REQUIRE_GPU();
  // gridDim.y stops at 65535 blocks of 32 rows: 2^21 + 99 rows need the kernel's loop for the last
  // few tile rows. Narrow, so the picture stays small (30 MiB).
  const Image in = random_image(5, (1 << 21) + 99, 3, 4242);
  check_against_reference(in, random_mask(3, 5, 4243, -0.5f, 1.0f, 2.0f / 15));
  check_against_reference(in, make_filter("gaussian", 5, 5));
}

TEST_CASE("image kernel: the named filters on the built-in picture", "[gpu][image]") {
  PMPP_REQUIRE_GPU();
  for (int c : {1, 3, 4}) {
    const Image picture = test_picture(384, 256, c);
    for (const auto& name : filter_names()) {
      INFO(name << " on " << c << " channels");
      const Mask mask = make_filter(name);
      check_against_reference(picture, mask);
      // The filters do something: none of them leaves this picture as it was.
      CHECK(run_on_gpu(picture, mask).pixels != picture.pixels);
    }
  }
}

TEST_CASE("image kernel indexes images over 2^31 bytes in 64 bits", "[gpu][image][large]") {
  PMPP_REQUIRE_GPU();
  // 32768 x 16400 RGBA = 2^31 + 2^21 bytes: the last 16 rows start beyond 2^31, where a 32-bit
  // index would wrap around to negative offsets.
  const int w = 32768, h = 16400, c = 4;
  const std::size_t bytes = static_cast<std::size_t>(w) * h * c;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < 2 * bytes + (std::size_t{1} << 30))
    SKIP("needs " << (2 * bytes >> 20) << " MiB of free GPU memory, this GPU has " << (free_bytes >> 20));

  Image in(w, h, c);
  pmpp::parallel_for(h, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t row = first; row < last; ++row)
      for (std::int64_t x = 0; x < static_cast<std::int64_t>(in.row_bytes()); ++x)
        in.pixels[static_cast<std::size_t>(row) * in.row_bytes() + x] = static_cast<std::uint8_t>((row * 131 + x * 7 + (x >> 9)) & 0xFF);
  });
  const Mask mask = random_mask(5, 3, 77, -0.5f, 1.0f, 2.0f / 15);
  upload_image_mask(mask);
  pmpp::DeviceBuffer<std::uint8_t> d_in(in.pixels), d_out(bytes + 2 * kGuard);

  // Check the first and the last rows against the reference on crops of the image with one extra
  // row (the mask's vertical radius) on the inner side, so that every checked row sees true neighbours.
  const int band = 20, ry = mask.height / 2;
  auto crop = [&](int first_row, int rows) {
    Image part(w, rows, c);
    std::copy_n(in.pixels.begin() + static_cast<std::ptrdiff_t>(first_row * in.row_bytes()), part.bytes(), part.pixels.begin());
    return filter_image_reference(part, mask);
  };
  const Image top = crop(0, band + ry), bottom = crop(h - band - ry, band + ry);
  const std::size_t band_bytes = band * in.row_bytes();

  Image runs[2] = {Image(w, band, c), Image(w, band, c)};
  for (int r = 0; r < 2; ++r) {
    CUDA_CHECK(cudaMemset(d_out.data(), kPoisons[r], d_out.bytes()));
    filter_image({d_in.data(), d_out.data() + kGuard, w, h, c, mask.width, mask.height});
    CUDA_CHECK(cudaDeviceSynchronize());
    // The last band and the guard after it, straight from their offsets beyond 2^31.
    std::vector<std::uint8_t> tail(band_bytes + kGuard), head(band_bytes);
    CUDA_CHECK(cudaMemcpy(tail.data(), d_out.data() + kGuard + bytes - band_bytes, tail.size(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(head.data(), d_out.data() + kGuard, head.size(), cudaMemcpyDeviceToHost));
    std::size_t guard_written = 0;
    for (std::size_t i = band_bytes; i < tail.size(); ++i) guard_written += tail[i] != kPoisons[r];
    CHECK(guard_written == 0);
    runs[r].pixels.assign(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(band_bytes));

    Image head_image(w, band, c), want_top(w, band, c), want_bottom(w, band, c);
    head_image.pixels = head;
    std::copy_n(top.pixels.begin(), band_bytes, want_top.pixels.begin());
    std::copy_n(bottom.pixels.begin() + static_cast<std::ptrdiff_t>(ry * in.row_bytes()), band_bytes, want_bottom.pixels.begin());
    const std::string head_summary = compare_images(head_image, want_top), tail_summary = compare_images(runs[r], want_bottom);
    INFO("first rows: " << head_summary);
    INFO("last rows:  " << tail_summary);
    CHECK(head_summary.rfind("PASS", 0) == 0);
    CHECK(tail_summary.rfind("PASS", 0) == 0);
  }
  CHECK(runs[0].pixels == runs[1].pixels);
}
