// The fused ring's plan and its flags, checked on the CPU: the pieces tile the vector and keep every
// block equally busy, and the ring run in random orders the flags allow (simulate_fused_ring) leaves
// the element-wise sum on every rank, for one all-reduce and for two in a row; without the last
// handshake some order breaks the second sum (from four ranks on), which is why the kernel has it.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

using namespace pmpp::ch10::multi_gpu;

namespace {
const std::vector<std::size_t> kLengths = {0, 1, 3, 63, 64, 65, 129, 257, 1000, 4093, 28677};

// Rank r's vector: element i is 2^r, so a sum that missed or repeated a rank shows as another value.
std::vector<std::vector<float>> powers_of_two(int p, std::size_t n) {
  std::vector<std::vector<float>> v(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) v[static_cast<std::size_t>(r)].assign(n, std::ldexp(1.0f, r));
  return v;
}

// Elements of any rank that differ from `want`.
std::size_t wrong(const std::vector<std::vector<float>>& v, float want) {
  std::size_t count = 0;
  for (const auto& rank : v)
    for (float x : rank) count += x != want;
  return count;
}
}  // namespace

TEST_CASE("the fused ring's pieces tile the vector, start aligned, and stay within the bounds",
          "[fused_ring_plan]") {
  for (int p = 1; p <= 8; ++p) {
    for (std::size_t n : kLengths) {
      for (int blocks : {1, 3, 132}) {
        for (std::size_t chunk : {std::size_t{0}, std::size_t{64}, std::size_t{100}}) {
          const RingPlan plan = plan_fused_ring(n, p, blocks, chunk);
          INFO("p = " << p << ", n = " << n << ", blocks " << blocks << ", chunk " << chunk);
          CHECK(plan.slots == 0);
          CHECK(plan.staging_elements() == 0);
          REQUIRE(plan.chunks <= kMaxFusedChunks);
          std::size_t next = 0;
          for (int s = 0; s < p; ++s) {
            const Range segment = plan.segment(s);
            CHECK(segment.begin == next);
            next = segment.end;
            std::size_t inside = segment.begin;
            for (int c = 0; c < plan.chunks; ++c) {
              const Range piece = plan.piece(s, c);
              CHECK(piece.begin == inside);
              if (!piece.empty()) CHECK(piece.begin % kAlignElements == 0);
              inside = piece.end;
            }
            if (plan.chunks > 0) CHECK(inside == segment.end);
          }
          CHECK(next == n);
        }
      }
    }
  }
}

TEST_CASE("the fused ring's default pieces: the same number for every block, 16 KiB to 1 MiB", "[fused_ring_plan]") {
  // 1 GiB over 2 ranks on 264 blocks: 512 MiB segments in 2 rounds of 264 pieces of about 1 MiB.
  const RingPlan big = plan_fused_ring(std::size_t{1} << 28, 2, 264);
  CHECK(big.chunks == 528);
  CHECK(big.chunk_elements * sizeof(float) <= (std::size_t{1} << 20));
  // 8 MiB over 2 ranks: 4 MiB segments; pieces of 16 KiB at least, so 256 of the 264 blocks have one.
  const RingPlan small = plan_fused_ring(std::size_t{1} << 21, 2, 264);
  CHECK(small.chunk_elements == 4096);
  CHECK(small.chunks == 256);
  // A segment between: one piece per block.
  const RingPlan medium = plan_fused_ring(std::size_t{1} << 25, 2, 132);
  CHECK(medium.chunks == 132);
  // 4 GiB over 2 ranks on 8 blocks would need 2048 pieces of 1 MiB; the cap keeps them to kMaxFusedChunks.
  CHECK(plan_fused_ring(std::size_t{1} << 30, 2, 8, 64).chunks <= kMaxFusedChunks);
  CHECK_THROWS_AS(plan_fused_ring(100, 2, 0), std::invalid_argument);
  CHECK_THROWS_AS(plan_fused_ring(100, 0, 4), std::invalid_argument);
}

TEST_CASE("the fused ring in any order its flags allow: the sum on every rank", "[fused_ring_model]") {
  for (int p = 1; p <= 8; ++p) {
    for (std::size_t n : {std::size_t{1}, std::size_t{65}, std::size_t{1000}, std::size_t{4093}}) {
      for (std::size_t chunk : {std::size_t{64}, std::size_t{256}}) {
        const RingPlan plan = plan_fused_ring(n, p, 3, chunk);
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
          auto v = powers_of_two(p, n);
          simulate_fused_ring(plan, v, seed);
          INFO("p = " << p << ", n = " << n << ", chunk " << chunk << ", seed " << seed);
          CHECK(wrong(v, std::ldexp(1.0f, p) - 1) == 0);
        }
      }
    }
  }
}

TEST_CASE("two fused all-reduces in a row, in place: the second sums the first's results", "[fused_ring_model]") {
  for (int p = 2; p <= 6; ++p) {
    const RingPlan plan = plan_fused_ring(1000, p, 2, 64);
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      auto v = powers_of_two(p, 1000);
      simulate_fused_ring(plan, v, seed, 2);
      INFO("p = " << p << ", seed " << seed);
      CHECK(wrong(v, static_cast<float>(p) * (std::ldexp(1.0f, p) - 1)) == 0);
    }
  }
}

TEST_CASE("without the last handshake, a rank may overwrite its vector while its right neighbour still reads it",
          "[fused_ring_model]") {
  // From four ranks on, a rank that has begun the next all-reduce (its left neighbour has too) may
  // write a segment its right neighbour has yet to read for the previous one; with two or three ranks
  // the other flags happen to order them. (For any p, whatever runs next on a rank's stream could
  // overwrite its vector too early: the kernel's last wait is there for that as well.) Some order the
  // flags allow finds the broken sum.
  for (int p : {4, 5, 6}) {
    const RingPlan plan = plan_fused_ring(640, p, 1, 64);
    bool broken = false;
    for (std::uint64_t seed = 1; seed <= 2000 && !broken; ++seed) {
      auto v = powers_of_two(p, 640);
      simulate_fused_ring(plan, v, seed, 2, /*end_handshake=*/false);
      broken = wrong(v, static_cast<float>(p) * (std::ldexp(1.0f, p) - 1)) > 0;
    }
    INFO("p = " << p);
    CHECK(broken);
  }
}

TEST_CASE("the fused ring's model refuses a vector per rank that is missing or short", "[fused_ring_model]") {
  std::vector<std::vector<float>> one(1, std::vector<float>(10));
  CHECK_THROWS_AS(simulate_fused_ring(plan_fused_ring(10, 2, 1), one, 1), std::invalid_argument);
  std::vector<std::vector<float>> short_ones(2, std::vector<float>(5));
  CHECK_THROWS_AS(simulate_fused_ring(plan_fused_ring(10, 2, 1), short_ones, 1), std::invalid_argument);
}
