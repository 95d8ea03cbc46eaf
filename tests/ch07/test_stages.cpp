// Every chapter-7 stage against the CPU reference over awkward sizes, every radius, asymmetric filters.
#include <catch2/catch_test_macros.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "pmpp/random.hpp"
#include "stage_runner.hpp"

using namespace pmpp::ch07;

namespace {
// 1x1, single rows and columns, primes, tile +- 1 (stage 03's tiles are 32 input and 32 - 2r output
// pixels wide, stage 04's 32, stage 05's 64, stage 06's 64 x 64), narrower than a tile, non-square
// both ways. Widths that
// are multiples of 4 take stage 05's float4 path, the others its scalar path.
const std::vector<std::pair<int, int>> kSizes{{1, 1},   {1, 37},   {37, 1},  {31, 31}, {32, 32},  {33, 33},
                                              {28, 29}, {17, 95},  {95, 17}, {64, 3},  {127, 61}, {200, 131},
                                              {4, 1},   {64, 64},  {68, 65}, {60, 129}, {132, 63}};

struct Inputs {
  std::vector<float> in, filter;
};

// Exact inputs are small integers: every partial sum is exact in float, so any order of addition
// must reproduce the reference bit for bit. Float inputs are checked against float_error_bound.
Inputs make_inputs(int w, int h, int radius, bool exact, std::uint64_t seed) {
  const std::size_t pixels = static_cast<std::size_t>(w) * h;
  const std::size_t taps = static_cast<std::size_t>(filter_dim(radius)) * filter_dim(radius);
  if (exact) return {pmpp::random_small_ints(pixels, seed, -4, 4), pmpp::random_small_ints(taps, seed + 1, -3, 3)};
  return {pmpp::random_floats(pixels, seed), pmpp::random_floats(taps, seed + 1)};
}

void check_one(const Stage& stage, int w, int h, int radius, bool exact, std::uint64_t seed,
               ch07_test::RunOptions options = {}) {
  const Inputs x = make_inputs(w, h, radius, exact, seed);
  const auto want = convolution_2D_reference(x.in, x.filter, w, h, radius);
  const auto got = ch07_test::run_stage(stage, x.in, x.filter, w, h, radius, options);
  const pmpp::Tolerance tol = exact ? pmpp::Tolerance::exact() : pmpp::Tolerance{float_error_bound(x.filter, 1.0f), 0};
  const auto result = pmpp::compare(got, want, tol);
  INFO(result.summary());
  CHECK(result.ok());
}

// True where the stage's row says it does not run this problem on this GPU (Stage::skip_reason).
bool skips(const Stage& stage, int w, int h, int radius, int tile = 0) {
  return stage.skip_reason != nullptr && !stage.skip_reason({nullptr, nullptr, nullptr, w, h, radius, tile}).empty();
}

void check_stage(const Stage& stage, bool exact, std::uint64_t seed) {
  for (int radius = 1; radius <= stage.max_radius; ++radius) {
    for (auto [w, h] : kSizes) {
      if (skips(stage, w, h, radius)) continue;  // stage 07 runs widths that are a multiple of 4
      DYNAMIC_SECTION(stage.id << " " << w << "x" << h << " r=" << radius) { check_one(stage, w, h, radius, exact, seed); }
    }
  }
}

}  // namespace

TEST_CASE("the stage table lists the text's four stages and four beyond, in order", "[stages]") {
  std::vector<std::string> ids;
  for (const Stage& s : stages()) ids.push_back(s.id);
  CHECK(ids == std::vector<std::string>{"01_basic", "02_constant_memory", "03_tiled_halo", "04_cached_halo",
                                        "05_register_tiled", "06_tensor_cores", "07_tma_tiles", "08_packed_wgmma"});
  for (const Stage& s : stages()) {
    INFO(s.id);
    CHECK(s.max_radius == MAX_FILTER_RADIUS);
    CHECK(s.launch != nullptr);
    CHECK(s.text_op_per_byte != nullptr);
    CHECK(s.predict_counters != nullptr);
    CHECK(s.explain != nullptr);
    CHECK(std::string(s.model_note).size() > 0);
  }
  // The first stage takes the filter by pointer and writes its host round trip out; the others upload
  // it (to constant or global memory) and use DeviceBuffer. Only the stages beyond the text are swept.
  CHECK(stages().front().upload_filter == nullptr);
  CHECK(stages().front().round_trip != nullptr);
  for (std::size_t i = 1; i < stages().size(); ++i) {
    CHECK(stages()[i].upload_filter != nullptr);
    CHECK(stages()[i].round_trip == nullptr);
  }
  CHECK(stages().back().beyond_text);
  CHECK_FALSE(stages().front().beyond_text);
}

TEST_CASE("every stage is bit-exact on small integers", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage& stage : stages()) check_stage(stage, true, 11);
}

TEST_CASE("every stage is within the float error bound on random floats", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage& stage : stages()) check_stage(stage, false, 23);
}

TEST_CASE("stages with a tile choice are exact with every compiled tile that leaves an output", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage& stage : stages())
    for (int tile : stage.tiles)
      for (int radius = 1; radius <= stage.max_radius; ++radius)
        for (auto [w, h] : kSizes) {
          if (stage.cannot_run && !stage.cannot_run({nullptr, nullptr, nullptr, w, h, radius, tile}).empty()) continue;
          if (skips(stage, w, h, radius, tile)) continue;
          DYNAMIC_SECTION(stage.id << " tile " << tile << " " << w << "x" << h << " r=" << radius) {
            check_one(stage, w, h, radius, true, 31, {tile, 0});
          }
        }
}

TEST_CASE("stage launchers reject what they were not compiled for", "[stages]") {
  // These checks come before any CUDA call, so they need no GPU. A problem a stage says it cannot run
  // must also be refused by its launcher, not launched.
  int refused = 0;
  for (const Stage& s : stages()) {
    if (s.cannot_run == nullptr) continue;
    for (const Conv2dArgs& p : {Conv2dArgs{nullptr, nullptr, nullptr, 40, 30, 4, 8},    // 8 - 2*4 = 0: no output
                                Conv2dArgs{nullptr, nullptr, nullptr, 40, 30, 1, 12},   // not compiled
                                Conv2dArgs{nullptr, nullptr, nullptr, 40, 30, 1, 64}}) {
      INFO(s.id << " radius " << p.radius << " tile " << p.tile);
      REQUIRE_FALSE(s.cannot_run(p).empty());
      CHECK_THROWS_AS(s.launch(p), std::invalid_argument);
      ++refused;
    }
  }
  CHECK(refused > 0);  // some stage has preconditions beyond the radius: this test must check something
  for (const Stage& s : stages()) {
    if (s.upload_filter == nullptr) continue;  // 01 takes any radius through its pointer
    INFO(s.id);
    const std::vector<float> filter(filter_dim(MAX_FILTER_RADIUS + 1) * filter_dim(MAX_FILTER_RADIUS + 1), 1.0f);
    CHECK_THROWS_AS(s.upload_filter(filter.data(), MAX_FILTER_RADIUS + 1), std::invalid_argument);
    CHECK_THROWS_AS(s.upload_filter(filter.data(), 0), std::invalid_argument);
    CHECK_THROWS_AS(s.launch({nullptr, nullptr, nullptr, 40, 30, MAX_FILTER_RADIUS + 1, 0}), std::invalid_argument);
  }
}

TEST_CASE("stages accept rows that are not 16-byte aligned", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // A width that is a multiple of 4 but pointers one float off: stage 05 must notice and fall back
  // to scalar accesses (a float4 access there is a misaligned-address error).
  for (const Stage& stage : stages()) {
    const int r = skips(stage, 64, 64, 3) ? TENSOR_MIN_RADIUS : 3;  // stage 06 starts at r = 4
    if (skips(stage, 64, 64, r)) continue;
    for (std::size_t misalign : {1, 2, 3})
      for (auto [w, h] : std::vector<std::pair<int, int>>{{64, 64}, {68, 33}, {200, 131}}) {
        DYNAMIC_SECTION(stage.id << " " << w << "x" << h << " r=" << r << " misaligned by " << misalign) {
          check_one(stage, w, h, r, true, 41, {0, misalign});
        }
      }
  }
}

TEST_CASE("a one-hot image reveals a flipped or transposed filter", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  const int w = 40, h = 35;
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    std::vector<float> image(static_cast<std::size_t>(w) * h, 0.0f);
    image[static_cast<std::size_t>(17) * w + 20] = 1.0f;
    std::vector<float> filter(static_cast<std::size_t>(filter_dim(r)) * filter_dim(r));
    for (std::size_t i = 0; i < filter.size(); ++i) filter[i] = static_cast<float>(i + 1);
    const auto want = convolution_2D_reference(image, filter, w, h, r);
    for (const Stage& stage : stages()) {
      if (skips(stage, w, h, r)) continue;
      INFO(stage.id << " r=" << r);
      CHECK(ch07_test::run_stage(stage, image, filter, w, h, r) == want);
    }
  }
}

TEST_CASE("running a stage twice gives the same result", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  const auto in = pmpp::random_floats(70 * 50, 5);
  for (const Stage& stage : stages()) {
    const int r = skips(stage, 70, 50, 3) ? TENSOR_MIN_RADIUS : 3;  // stage 06 starts at r = 4
    if (skips(stage, 70, 50, r)) continue;
    const auto filter = pmpp::random_floats(static_cast<std::size_t>(filter_dim(r)) * filter_dim(r), 6);
    INFO(stage.id << " r=" << r);
    CHECK(ch07_test::run_stage(stage, in, filter, 70, 50, r) == ch07_test::run_stage(stage, in, filter, 70, 50, r));
  }
}

TEST_CASE("a hand-written host round trip matches the reference", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  const int w = 45, h = 33, r = 3;
  const auto in = pmpp::random_small_ints(static_cast<std::size_t>(w) * h, 3);
  const auto filter = pmpp::random_small_ints(49, 4, -3, 3);
  int checked = 0;
  for (const Stage& stage : stages()) {
    if (stage.round_trip == nullptr) continue;
    INFO(stage.id);
    std::vector<float> out(static_cast<std::size_t>(w) * h, NAN);
    stage.round_trip(in.data(), filter.data(), out.data(), w, h, r);
    CHECK(out == convolution_2D_reference(in, filter, w, h, r));
    ++checked;
  }
  CHECK(checked == 1);
}

TEST_CASE("every stage indexes images of more than 2^31 pixels", "[gpu][stages][large]") {
  PMPP_REQUIRE_GPU();
  // 40000 x 60000 = 2.4e9 pixels: row * width overflows a 32-bit int from row 53688 on. Running the
  // CPU reference on 9.6 GB would take minutes, so the image is zero but for a few spikes, and only
  // the windows around them (and one window with none) are copied back and checked exactly.
  const std::size_t capacity = std::size_t{40000} * 60000;
  std::size_t free_bytes = 0, total_bytes = 0;
  REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
  if (free_bytes < 2 * capacity * sizeof(float) + (std::size_t{1} << 30))
    SKIP("needs " << (2 * capacity * sizeof(float) >> 30) << " GiB of free device memory, this GPU has "
                  << (free_bytes >> 30) << " GiB free");
  pmpp::DeviceBuffer<float> in(capacity), out(capacity);
  const int r = TENSOR_MIN_RADIUS, d = filter_dim(r);  // a radius every stage runs
  const auto filter = pmpp::random_small_ints(static_cast<std::size_t>(d) * d, 51, -3, 3);

  for (auto [w, h] : std::vector<std::pair<int, int>>{{40000, 60000}, {39999, 60001}}) {  // float4 and scalar paths
    const std::int64_t W = w, H = h;
    struct Spike { std::int64_t row, col; float value; };
    const std::int64_t crossing = (std::int64_t{1} << 31) + 5;  // the first pixels past 2^31
    const std::vector<Spike> spikes{{H - 1, W - 1, 3}, {H - 2, W - 4, -2}, {H - 3, 0, 4},
                                    {crossing / W, crossing % W, 1}, {0, 1, 2}};
    CUDA_CHECK(cudaMemset(in.data(), 0, capacity * sizeof(float)));
    for (const Spike& s : spikes) CUDA_CHECK(cudaMemcpy(in.data() + s.row * W + s.col, &s.value, sizeof(float), cudaMemcpyHostToDevice));

    // Windows reaching r + 1 beyond each spike (clipped to the image), plus one far from all spikes.
    struct Window { std::int64_t row0, col0, rows, cols; };
    std::vector<Window> windows;
    for (const Spike& s : spikes) {
      const std::int64_t r0 = std::max<std::int64_t>(0, s.row - r - 1), c0 = std::max<std::int64_t>(0, s.col - r - 1);
      windows.push_back({r0, c0, std::min<std::int64_t>(H, s.row + r + 2) - r0, std::min<std::int64_t>(W, s.col + r + 2) - c0});
    }
    windows.push_back({H - 4, W / 2, 4, 16});

    for (const Stage& stage : stages()) {
      if (skips(stage, w, h, r)) continue;
      INFO(stage.id << " " << w << "x" << h);
      out.poison();
      if (stage.upload_filter) stage.upload_filter(filter.data(), r);
      pmpp::DeviceBuffer<float> d_filter(filter);
      stage.launch({in.data(), d_filter.data(), out.data(), w, h, r, 0});
      CUDA_CHECK(cudaDeviceSynchronize());
      for (const Window& win : windows) {
        std::vector<float> got(static_cast<std::size_t>(win.rows * win.cols));
        CUDA_CHECK(cudaMemcpy2D(got.data(), win.cols * sizeof(float), out.data() + win.row0 * W + win.col0,
                                W * sizeof(float), win.cols * sizeof(float), win.rows, cudaMemcpyDeviceToHost));
        std::vector<float> want(got.size(), 0.0f);
        for (std::int64_t i = 0; i < win.rows; ++i)
          for (std::int64_t j = 0; j < win.cols; ++j)
            for (const Spike& s : spikes) {  // out[row][col] picks F[s.row - row + r][s.col - col + r]
              const std::int64_t fr = s.row - (win.row0 + i) + r, fc = s.col - (win.col0 + j) + r;
              if (fr >= 0 && fr < d && fc >= 0 && fc < d) want[i * win.cols + j] += filter[fr * d + fc] * s.value;
            }
        INFO("window at row " << win.row0 << ", column " << win.col0);
        const auto result = pmpp::compare(got, want, pmpp::Tolerance::exact());
        INFO(result.summary());
        CHECK(result.ok());
      }
    }
  }
}

TEST_CASE("stage rows with a skip reason say why in one line, and run where they can", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // Stage 06 is for r >= TENSOR_MIN_RADIUS and needs compute capability 8.0; stage 07 needs 9.0 and a
  // width that is a multiple of 4; stage 08 is for r >= TENSOR_MIN_RADIUS and needs sm_90a code. Each
  // skips the first problem on every GPU, and runs the second unless this GPU lacks the instructions:
  // then it says which it needs.
  struct Expected {
    const char* id;
    Conv2dArgs skipped, runs;
    const char* needs;
  };
  const std::vector<Expected> expected{
      {"06_tensor_cores", {nullptr, nullptr, nullptr, 64, 64, TENSOR_MIN_RADIUS - 1, 0},
       {nullptr, nullptr, nullptr, 64, 64, TENSOR_MIN_RADIUS, 0}, "compute capability 8.0"},
      {"07_tma_tiles", {nullptr, nullptr, nullptr, 66, 64, 3, 0}, {nullptr, nullptr, nullptr, 64, 64, 3, 0},
       "compute capability 9.0"},
      {"08_packed_wgmma", {nullptr, nullptr, nullptr, 64, 64, TENSOR_MIN_RADIUS - 1, 0},
       {nullptr, nullptr, nullptr, 67, 45, TENSOR_MIN_RADIUS, 0}, "compute capability 9.0"}};
  std::size_t with_reason = 0, lacking = 0;
  for (const Stage& stage : stages()) with_reason += stage.skip_reason != nullptr;
  CHECK(with_reason == expected.size());  // a new row with a skip reason belongs in this list
  for (const Expected& e : expected) {
    const Stage* stage = find_stage(e.id);
    REQUIRE(stage != nullptr);
    REQUIRE(stage->skip_reason != nullptr);
    INFO(e.id);
    const std::string skipped = stage->skip_reason(e.skipped);
    CHECK_FALSE(skipped.empty());
    CHECK(skipped.find('\n') == std::string::npos);
    const std::string runs = stage->skip_reason(e.runs);
    if (!runs.empty()) {
      CHECK(runs.find(e.needs) != std::string::npos);
      ++lacking;
    }
  }
  if (lacking == expected.size()) SKIP("this GPU has the instructions of none of these stages");
}
