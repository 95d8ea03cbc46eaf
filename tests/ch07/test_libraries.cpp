// The library baselines (cuDNN, NPP) compute the chapter's convolution: unflipped filter, zero ghost
// cells, every radius, odd and non-square sizes. Each library skips where this build has none.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/library_baseline.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/random.hpp"

using namespace pmpp::ch07;

namespace {
/// @p library's result for @p in and @p filter, through prepare() and run() as the programs call them.
std::vector<float> run_library(const LibraryBaseline& library, const std::vector<float>& in,
                               const std::vector<float>& filter, int w, int h, int r) {
  pmpp::DeviceBuffer<float> d_in(in), d_filter(filter), d_out(static_cast<std::size_t>(w) * h);
  d_out.poison();
  const auto conv = library.make(w, h, r);
  conv->prepare(d_in.data(), d_filter.data());
  conv->run(d_in.data(), d_filter.data(), d_out.data());
  conv->collect(d_out.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(d_in.to_host() == in);  // the input is left as it was
  return d_out.to_host();
}

/// Check @p library against the CPU reference within the chapter's float bound (not exact: a library
/// may choose an FFT algorithm; a flipped or shifted filter is off by whole filter values, far beyond it).
void check_library(const LibraryBaseline& library, const std::vector<float>& in, const std::vector<float>& filter,
                   int w, int h, int r) {
  const auto result = pmpp::compare(run_library(library, in, filter, w, h, r),
                                    convolution_2D_reference(in, filter, w, h, r),
                                    pmpp::Tolerance{float_error_bound(filter, 1.0f), 0});
  INFO(result.summary());
  CHECK(result.ok());
}

// Skips the case (one line naming the library) unless this build has it.
#define REQUIRE_LIBRARY(library) \
  if (!(library).available()) SKIP((library).description())
}  // namespace

TEST_CASE("the library table lists cuDNN and NPP", "[libraries]") {
  std::vector<std::string> names;
  for (const LibraryBaseline& library : library_baselines()) {
    names.push_back(library.name);
    INFO(library.name);
    CHECK_FALSE(library.description().empty());
  }
  CHECK(names == std::vector<std::string>{"cuDNN", "NPP"});
}

TEST_CASE("each library computes the chapter's convolution within the float bound", "[gpu][libraries]") {
  PMPP_REQUIRE_GPU();
  for (const LibraryBaseline& library : library_baselines())
    for (auto [w, h, r] : std::vector<std::tuple<int, int, int>>{
             {67, 45, 1}, {64, 64, 2}, {1, 1, 2}, {67, 45, 3}, {1, 37, 1}, {37, 1, 2},
             {200, 131, 4}, {31, 33, 5}, {95, 17, 6}, {64, 64, 7}, {33, 65, 8}}) {
      DYNAMIC_SECTION(library.name << " " << w << "x" << h << " r=" << r) {
        REQUIRE_LIBRARY(library);
        const auto in = pmpp::random_floats(static_cast<std::size_t>(w) * h, 61);
        const auto filter = pmpp::random_floats(static_cast<std::size_t>(filter_dim(r)) * filter_dim(r), 62);
        check_library(library, in, filter, w, h, r);
      }
    }
}

TEST_CASE("no library flips, transposes or shifts the filter", "[gpu][libraries]") {
  PMPP_REQUIRE_GPU();
  // One pixel of 1 next to an edge: the result is the filter itself, placed around it, so a flipped
  // filter, a misplaced anchor or edge pixels repeated instead of zeros all show.
  const int w = 23, h = 19;
  for (const LibraryBaseline& library : library_baselines())
    for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
      DYNAMIC_SECTION(library.name << " r=" << r) {
        REQUIRE_LIBRARY(library);
        std::vector<float> image(static_cast<std::size_t>(w) * h, 0.0f);
        image[static_cast<std::size_t>(2) * w + 1] = 1.0f;
        std::vector<float> filter(static_cast<std::size_t>(filter_dim(r)) * filter_dim(r));
        for (std::size_t i = 0; i < filter.size(); ++i) filter[i] = static_cast<float>(i + 1);
        check_library(library, image, filter, w, h, r);
      }
    }
}

TEST_CASE("each library handles the chapter's default size at the largest radius", "[gpu][libraries][large]") {
  PMPP_REQUIRE_GPU();
  // 8192 x 8192 is what the side-by-side program times; a library may refuse a size (or need a
  // workspace) that small tests never meet. Spikes of 2 keep the reference cheap.
  const int w = 8192, h = 8192, r = MAX_FILTER_RADIUS, d = filter_dim(r);
  std::vector<float> image(static_cast<std::size_t>(w) * h, 0.0f);
  for (int k = 0; k < 64; ++k) image[(static_cast<std::size_t>(k) * 127 % h) * w + (k * 4093 % w)] = 2.0f;
  const auto filter = pmpp::random_small_ints(static_cast<std::size_t>(d) * d, 71, -3, 3);
  std::vector<float> want(image.size(), 0.0f);
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x) {
      if (image[y * w + x] == 0.0f) continue;
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) {  // out[y - r + i][x - r + j] takes F[2r - i][2r - j] from this pixel
          const std::int64_t oy = y + r - i, ox = x + r - j;
          if (oy >= 0 && oy < h && ox >= 0 && ox < w) want[oy * w + ox] += filter[i * d + j] * image[y * w + x];
        }
    }
  for (const LibraryBaseline& library : library_baselines()) {
    DYNAMIC_SECTION(library.name) {
      REQUIRE_LIBRARY(library);
      const auto result = pmpp::compare(run_library(library, image, filter, w, h, r), want,
                                        pmpp::Tolerance{float_error_bound(filter, 2.0f), 0});
      INFO(result.summary());
      CHECK(result.ok());
    }
  }
}
