// Every chapter-5 stage (every TILE_WIDTH) against the CPU reference over awkward, non-square sizes.
#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch05_matmul/matmul.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/random.hpp"
#include "stage_runner.hpp"

using namespace pmpp::ch05;

namespace {
struct Shape {
  int M, N, K;
};
// 1x1x1 and 1xKx1 (a single dot product, K not a multiple of any tile); 31/32/33 around a warp and
// the 32 tile; 15/16/17 around the 16 tile; 127/128/129 around stage 03's 128 x 128 tile and K slices
// of 8 and 16; 255/257 around stage 04's 256 columns; primes; one dimension 1 with the others large;
// N and K multiples of 4 (the float4 path of stages 03-04) with partial tiles; odd N or K (their
// scalar path); K a multiple of 32 with partial tiles and more slices than buffers (stage 09 reads A
// in place there, and refills its buffers).
const std::vector<Shape> kShapes{
    {1, 1, 1},     {1, 1, 257},    {1, 1, 1000},  {31, 31, 31},   {32, 32, 32},   {33, 33, 33},
    {33, 17, 65},  {33, 65, 17},   {15, 17, 16},  {17, 15, 31},   {127, 129, 128}, {128, 128, 128},
    {129, 127, 8}, {97, 89, 83},   {131, 257, 7}, {1, 300, 5},    {300, 1, 5},    {200, 3, 513},
    {64, 132, 36}, {130, 260, 20}, {129, 131, 37}, {256, 260, 264}, {2, 1031, 3}, {1031, 2, 9},
    {129, 255, 17}, {127, 257, 33}, {260, 516, 48}, {131, 259, 320}};

void check_every_variant(bool exact, std::uint64_t seed, std::size_t offset = 0) {
  for (const auto& v : ch05_test::runnable_variants())
    for (const Shape& s : kShapes) {
      DYNAMIC_SECTION(v.name << " " << s.M << "x" << s.N << "x" << s.K << (offset ? " misaligned" : "")) {
        const std::size_t a_size = static_cast<std::size_t>(s.M) * s.K, b_size = static_cast<std::size_t>(s.K) * s.N;
        const auto A = exact ? pmpp::random_small_ints(a_size, seed) : pmpp::random_floats(a_size, seed);
        const auto B = exact ? pmpp::random_small_ints(b_size, seed + 1) : pmpp::random_floats(b_size, seed + 1);
        const Reference want = matmul_reference(A, B, s.M, s.N, s.K);
        const auto got = ch05_test::run(v.launch, A, B, s.M, s.N, s.K, v.tile, offset);
        const auto result = check_against(got, want, s.K, exact, v.bound().of);
        INFO(result.summary());
        CHECK(result.ok());
        CHECK(result.checked == static_cast<std::size_t>(s.M) * s.N);
      }
    }
}
}  // namespace

TEST_CASE("every stage is bit-exact on small integers", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  check_every_variant(true, 11);
}

TEST_CASE("every stage is within its arithmetic's rounding bound on random floats", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // Bound per entry: gamma(K+1) * sum_k |a_k b_k| (float_error_bound), the worst case for any order
  // of summation, plus what rounding the operands to TF32 (or splitting them) adds for the tensor-core
  // stages (the stage row's error_bound); the exact test above catches a single wrong term.
  check_every_variant(false, 23);
}

TEST_CASE("the 3xTF32 stages are as accurate as FP32 at 4096^3: their error against FP64 is no larger "
          "than cuBLAS FP32 SGEMM's",
          "[gpu][stages][cublas]") {
  PMPP_REQUIRE_GPU();
  if (!cublas_available()) SKIP(cublas_missing());
  // Every stage whose arithmetic is 3xTF32 against cuBLAS in FP32, at the size the chapter measures, on
  // the entries the programs check there (whole rows and columns, and random ones). Not at every size:
  // at 256 x 256 x 2048 on an H200 stage 07's worst error was 2.2 times cuBLAS's (4.1e-5 against
  // 1.9e-5); their own bound holds everywhere (the test above).
  const int M = 4096, N = 4096, K = 4096;
  const auto A = pmpp::random_floats(static_cast<std::size_t>(M) * K, 61);
  const auto B = pmpp::random_floats(static_cast<std::size_t>(K) * N, 62);
  const Reference want = matmul_reference(A, B, M, N, K, sample_entries(M, N, 4096, 63));
  const CublasSgemm cublas;
  const auto library = check_against(ch05_test::run([&](const MatmulArgs& a) { return cublas.launch(a); }, A, B, M, N, K),
                                     want, K, false);
  REQUIRE(library.ok());
  int compared = 0;
  for (const auto& v : ch05_test::runnable_variants())
    if (std::string(v.stage->arithmetic) == "3xTF32") {
      const auto result = check_against(ch05_test::run(v.launch, A, B, M, N, K, v.tile), want, K, false, v.bound().of);
      INFO(v.name << ": " << result.summary() << "; cuBLAS FP32: " << library.summary());
      CHECK(result.ok());
      CHECK(result.worst_error <= library.worst_error);
      ++compared;
    }
  if (compared == 0) SKIP("no 3xTF32 stage runs on this GPU");
}

TEST_CASE("every stage works on operands that are not 16-byte aligned", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // One float in: stage 03 must leave its float4 path even where N and K are multiples of 4.
  check_every_variant(true, 31, 1);
}

TEST_CASE("every stage at 4093 x 4099 x 4097: no dimension a multiple of any tile, checked on a sample",
          "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // Every partial tile at once, in all three dimensions, at a size where the register-tiled stages run
  // many slices; odd N and K also take stages 03-04 off their float4 path. The reference covers rows 0,
  // M/2 and M-1, columns 0, N/2 and N-1, and 4096 random entries (as the programs check large products).
  const int M = 4093, N = 4099, K = 4097;
  const auto A = pmpp::random_floats(static_cast<std::size_t>(M) * K, 41);
  const auto B = pmpp::random_floats(static_cast<std::size_t>(K) * N, 42);
  const Reference want = matmul_reference(A, B, M, N, K, sample_entries(M, N, 4096, 43));
  for (const auto& v : ch05_test::runnable_variants()) {
    INFO(v.name);
    const auto result = check_against(ch05_test::run(v.launch, A, B, M, N, K, v.tile), want, K, false, v.bound().of);
    INFO(result.summary());
    CHECK(result.ok());
    CHECK(result.checked == want.index.size());
  }
}

TEST_CASE("one-hot operands reveal swapped or transposed indexing", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // A has a single 1 at (3, 5) and B a single 1 at (5, 7): C must have a single 1 at (3, 7).
  const int M = 10, N = 12, K = 9;
  std::vector<float> A(static_cast<std::size_t>(M) * K, 0.0f), B(static_cast<std::size_t>(K) * N, 0.0f);
  A[3 * K + 5] = 1.0f;
  B[5 * N + 7] = 1.0f;
  std::vector<float> want(static_cast<std::size_t>(M) * N, 0.0f);
  want[3 * N + 7] = 1.0f;
  for (const auto& v : ch05_test::runnable_variants()) {
    INFO(v.name);
    CHECK(ch05_test::run(v.launch, A, B, M, N, K, v.tile) == want);
  }
}

TEST_CASE("running a stage twice gives the same result", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  const int M = 70, N = 90, K = 50;
  const auto A = pmpp::random_floats(static_cast<std::size_t>(M) * K, 5);
  const auto B = pmpp::random_floats(static_cast<std::size_t>(K) * N, 6);
  for (const auto& v : ch05_test::runnable_variants()) {
    INFO(v.name);
    CHECK(ch05_test::run(v.launch, A, B, M, N, K, v.tile) == ch05_test::run(v.launch, A, B, M, N, K, v.tile));
  }
}

TEST_CASE("a stage this GPU cannot run says why in one line, and its launcher refuses", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // Stages with a requirement (the tensor-core ones: compute capability 8.0, stage 08's 9.0, and code
  // compiled for it) are skipped, not failed, where it is not met; where it is, the tests above ran them.
  pmpp::DeviceBuffer<float> d(64);
  std::string skipped;
  for (const Stage& s : stages()) {
    if (s.unavailable == nullptr) continue;
    const std::string why = s.unavailable();
    INFO(s.id << ": " << why);
    if (why.empty()) {
      CHECK(pmpp::query_device().major >= 8);  // a GPU that runs them has tensor cores
      continue;
    }
    CHECK(why.find("needs compute capability ") != std::string::npos);
    CHECK(why.find('\n') == std::string::npos);
    CHECK_THROWS_AS(s.launch({d.data(), d.data(), d.data(), 4, 4, 4, 0}), std::runtime_error);
    skipped += std::string(skipped.empty() ? "" : "; ") + s.id + ": " + why;
  }
  if (!skipped.empty()) SKIP(skipped);
}
