// The text's analysis (sections 10.4-10.6): its closed forms against the numbers it prints, and the
// warp-by-warp count of the same rules against both, including where the text's formula is wrong.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <stdexcept>

#include "ch10_reduction/reduction.hpp"

using Catch::Approx;
using namespace pmpp::ch10;

namespace {
ResourceCounts counted(const char* id, std::size_t n) {
  const Stage& s = *find_stage(id);
  return s.model(n, s.plan(n, GpuShape{}));
}
// Elements per block of a multi-block stage whose grid grows with n (04, 05).
std::size_t segment_of(const Stage& s) {
  const std::size_t big = std::size_t{1} << 30;
  return big / s.plan(big, GpuShape{}).grid;
}
}  // namespace

TEST_CASE("the text's closed forms give its printed numbers", "[analysis]") {
  CHECK(text_simple_committed(256) == 255);
  CHECK(text_simple_consumed(256) == 736);
  CHECK(text_simple_requests(256) == 141);
  CHECK(text_simple_requests(2048) == 1149);
  CHECK(text_convergent_consumed(256) == 384);
  CHECK(text_convergent_requests(256) == 36);
  CHECK(text_convergent_requests(2048) == 204);
  CHECK(text_shared_memory_requests(256) == 9);
  // Efficiency 255/736 = 0.35 and 255/384 = 0.66; requests ratio 141/36 = 3.9 and 1149/204 = 5.6.
  CHECK(255.0 / text_simple_consumed(256) == Approx(0.35).margin(0.005));
  CHECK(255.0 / text_convergent_consumed(256) == Approx(0.66).margin(0.005));
  CHECK(141.0 / 36 == Approx(3.9).margin(0.05));
  CHECK(1149.0 / 204 == Approx(5.6).margin(0.05));
}

TEST_CASE("the closed forms apply to powers of two from 64", "[analysis]") {
  CHECK(text_formulas_apply(64));
  CHECK(text_formulas_apply(2048));
  CHECK_FALSE(text_formulas_apply(32));
  CHECK_FALSE(text_formulas_apply(1000));
}

TEST_CASE("counted for the worked example N = 256: where the text is right, and where it is not", "[analysis]") {
  const ResourceCounts simple = counted("01_simple", 256);
  CHECK(simple.committed == 255);
  // The text's 736 keeps all N/64 warps busy for 5 iterations; at stride 32 threads 0, 32, 64 and 96
  // (one per warp) still add, so it is 6: (4 * 6 + 2 + 1) * 32 = 864, efficiency 0.30, not 0.35.
  CHECK(simple.consumed == 864);
  CHECK(simple.efficiency() == Approx(255.0 / 864));
  CHECK(simple.requests == 141 + 2);  // + thread 0's final load of input[0] and store to *output
  const ResourceCounts convergent = counted("02_convergent", 256);
  CHECK(convergent.committed == 255);
  CHECK(convergent.consumed == 384);
  CHECK(convergent.requests == 36 + 2);
  const ResourceCounts shared = counted("03_shared_memory", 256);
  CHECK(shared.committed == 255);
  CHECK(shared.requests == 9);
  CHECK(counted("01_simple", 2048).requests == 1149 + 2);
  CHECK(counted("02_convergent", 2048).requests == 204 + 2);
}

TEST_CASE("the text's consumed-lanes formula for Fig 10.6 is short by exactly N/64 warps", "[analysis]") {
  for (std::size_t N = 64; N <= 2048; N *= 2) {
    INFO("N = " << N);
    CHECK(counted("01_simple", N).consumed == text_simple_consumed(N) + N / 64 * 32);
    CHECK(counted("01_simple", N).committed == text_simple_committed(N));
    CHECK(counted("01_simple", N).requests == text_simple_requests(N) + 2);
    CHECK(counted("02_convergent", N).consumed == text_convergent_consumed(N));
    CHECK(counted("02_convergent", N).requests == text_convergent_requests(N) + 2);
    CHECK(counted("03_shared_memory", N).requests == text_shared_memory_requests(N));
  }
}

TEST_CASE("the text's stages commit n - (blocks) results where every add combines input data", "[analysis]") {
  // Stages 01-03 skip a partner past the end, for any n. In stages 04-05 a last segment of fewer
  // elements than the block has threads leaves shared-memory slots that hold only the identity, and the
  // tree's lanes that add them count too: more than n - blocks then.
  for (const Stage& s : stages()) {
    if (!s.text) continue;  // stage 06 adds identities in every lane past the end, by design
    for (std::size_t n : {1, 2, 3, 5, 17, 100, 1000, 2047, 2048, 2049, 3000, 16384, 16385, 100003, 1 << 20}) {
      if (n > s.max_n) continue;
      const ReductionLaunch c = s.plan(n, GpuShape{});
      const ResourceCounts counted = s.model(n, c);
      const bool single_block = s.max_n == SINGLE_BLOCK_MAX_N;
      const std::size_t last_segment = single_block ? n : n - (c.grid - 1) * segment_of(s);
      INFO(s.id << " n = " << n << ", last segment " << last_segment);
      if (single_block || last_segment >= c.block)
        CHECK(counted.committed == n - c.grid);
      else
        CHECK(counted.committed > n - c.grid);
    }
  }
}

TEST_CASE("sectors per load: one segment, 4 sectors, when a warp reads 32 consecutive floats", "[analysis]") {
  const std::size_t n = std::size_t{1} << 24;
  CHECK(counted("04_segmented", n).sectors_per_load() == 4.0);
  CHECK(counted("05_coarsened", n).sectors_per_load() == 4.0);
  // Stage 06: a warp's float4 loads cover 512 bytes, 16 sectors; the last block's read of the block results
  // covers fewer.
  CHECK(counted("06_single_pass_float4", n).sectors_per_load() > 15.9);
  CHECK(counted("06_single_pass_float4", n).sectors_per_load() <= 16.0);
  // Stage 01's first step: lanes 8 bytes apart, so a warp's load of input[2t] spans 8 sectors.
  CHECK(counted("01_simple", 64).sectors_per_load() > 4.0);
}

TEST_CASE("multi-block stages: the text's per-block count times the blocks", "[analysis]") {
  // Section 10.6: a block of Fig 10.11 makes N/32 + 1 requests for its N elements; stages 04 and 05 make
  // one atomic per block instead of the final store.
  const std::size_t n = std::size_t{1} << 24;
  CHECK(counted("04_segmented", n).requests == n / 32 + n / 2048);
  CHECK(counted("05_coarsened", n).requests == n / 32 + n / (2048 * COARSE_FACTOR));
  // Stage 06 reads 512 bytes per warp access: 4 segments each, the same n / 32 in total.
  const ResourceCounts beyond = counted("06_single_pass_float4", n);
  CHECK(beyond.requests >= n / 32);
  CHECK(beyond.requests < n / 32 + 4 * 132 * 8 + 64);
  CHECK(beyond.efficiency() > 0.99);  // every lane adds at every step; only the last block's loop diverges
}

TEST_CASE("single-block launch plans", "[analysis]") {
  CHECK(single_block_threads(1) == 1);
  CHECK(single_block_threads(2) == 1);
  CHECK(single_block_threads(3) == 2);
  CHECK(single_block_threads(16) == 8);
  CHECK(single_block_threads(1025) == 1024);
  CHECK(single_block_threads(2048) == 1024);
  CHECK(simple_plan(0, GpuShape{}).grid == 0);
  CHECK(simple_plan(2048, GpuShape{}).rounding_depth == 11);
}

TEST_CASE("multi-block launch plans", "[analysis]") {
  CHECK(segmented_plan(2048, GpuShape{}).grid == 1);
  CHECK(segmented_plan(2049, GpuShape{}).grid == 2);
  CHECK(coarsened_plan(16384, GpuShape{}).grid == 1);
  CHECK(coarsened_plan(16385, GpuShape{}).grid == 2);
  CHECK(coarsened_plan((std::size_t{1} << 32) + 1, GpuShape{}).grid == (1u << 18) + 1);
  const GpuShape h100{132, 2048};
  CHECK(single_pass_plan(std::size_t{1} << 28, h100).grid == 132 * (2048 / SINGLE_PASS_BLOCK_DIM));  // every SM full, no more
  CHECK(single_pass_plan(1, h100).grid == 1);
  CHECK(single_pass_plan(0, h100).grid == 1);  // it still writes the identity
}

TEST_CASE("launchers check their preconditions before touching the GPU", "[analysis]") {
  for (const Stage& s : stages()) {
    if (s.max_n != SINGLE_BLOCK_MAX_N) continue;
    INFO(s.id);
    CHECK_THROWS_AS(s.launch({nullptr, nullptr, SINGLE_BLOCK_MAX_N + 1, Op::sum, nullptr}), std::invalid_argument);
    CHECK_THROWS_AS(s.launch({nullptr, nullptr, 16, Op::max, nullptr}), std::invalid_argument);
    CHECK_THROWS_AS(s.launch_counted({nullptr, nullptr, 16, Op::max, nullptr}, {}), std::invalid_argument);
  }
  CHECK_THROWS_AS(segmented_sum_reduction({nullptr, nullptr, 16, Op::min, nullptr}), std::invalid_argument);
  CHECK_THROWS_AS(segmented_sum_reduction_counted({nullptr, nullptr, 16, Op::min, nullptr}, {}),
                  std::invalid_argument);
}
