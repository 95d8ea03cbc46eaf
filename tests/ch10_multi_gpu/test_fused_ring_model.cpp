// The fused ring's plan and its flags, checked on the CPU: the pieces tile the vector and keep every
// block equally busy, and the ring run in random orders the flags allow (simulate_fused_ring) leaves
// the element-wise sum on every rank, for one all-reduce and for two in a row, with one staging slot
// per piece or more; without the credits (a sender waiting for its receiver to free a staging slot)
// some order breaks the sum wherever a slot is reused within an all-reduce, which is why the kernel
// waits for them.
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
          // Staging slots per piece: two, but never more than the p-1 pushes a piece receives.
          CHECK(plan.slots == (p <= 2 ? 1 : 2));
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
  CHECK_THROWS_AS(plan_fused_ring(100, 2, 4, 0, -1), std::invalid_argument);
}

TEST_CASE("the fused ring's staging: its slots, each a segment of the largest vector", "[fused_ring_plan]") {
  CHECK(plan_fused_ring(1000, 5, 3, 64, 1).slots == 2);  // one slot, reused, would deadlock (see below)
  CHECK(plan_fused_ring(1000, 2, 3, 64, 2).slots == 1);  // one push per piece: one slot, never reused
  CHECK(plan_fused_ring(1000, 5, 3, 64, 9).slots == 4);  // p-1 pushes a piece: a fifth slot would stay empty
  CHECK(fused_staging_elements(0, 4) == 0);
  CHECK(fused_staging_elements(1000, 1) == 0);             // one rank pushes nothing
  CHECK(fused_staging_elements(1000, 2) == 512);           // one slot of a 500-float segment, rounded to 64
  CHECK(fused_staging_elements(1000, 4) == 2 * 256);       // two slots of 250, rounded to 256
  CHECK(fused_staging_elements(1000, 4, 3) == 3 * 256);
  // Any vector up to the capacity finds its pieces inside the slots: every piece of every segment of a
  // shorter vector ends within one slot's length.
  const std::size_t capacity = 100003;
  const RingPlan largest = plan_fused_ring(capacity, 3, 1);
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, capacity}) {
    const RingPlan plan = plan_fused_ring(n, 3, 7, 64);
    for (int s = 0; s < 3; ++s)
      for (int c = 0; c < plan.chunks; ++c)
        CHECK(plan.piece(s, c).end - plan.segment(s).begin <= largest.segment_elements);
  }
}

TEST_CASE("the fused ring in any order its flags allow: the sum on every rank", "[fused_ring_model]") {
  for (int p = 1; p <= 8; ++p) {
    for (std::size_t n : {std::size_t{1}, std::size_t{65}, std::size_t{1000}, std::size_t{4093}}) {
      for (std::size_t chunk : {std::size_t{64}, std::size_t{256}}) {
        for (int slots : {2, 3}) {
          const RingPlan plan = plan_fused_ring(n, p, 3, chunk, slots);
          for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            auto v = powers_of_two(p, n);
            simulate_fused_ring(plan, v, seed);
            INFO("p = " << p << ", n = " << n << ", chunk " << chunk << ", " << plan.slots << " slots, seed "
                        << seed);
            CHECK(wrong(v, std::ldexp(1.0f, p) - 1) == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("two fused all-reduces in a row, in place: the second sums the first's results", "[fused_ring_model]") {
  for (int p = 2; p <= 6; ++p) {
    const RingPlan plan = plan_fused_ring(1000, p, 2, 64, 2 + p % 2);  // two slots per piece, or three
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      auto v = powers_of_two(p, 1000);
      simulate_fused_ring(plan, v, seed, 2);
      INFO("p = " << p << ", seed " << seed);
      CHECK(wrong(v, static_cast<float>(p) * (std::ldexp(1.0f, p) - 1)) == 0);
    }
  }
}

TEST_CASE("without the credits, a sender may overwrite a staging slot its receiver has yet to read",
          "[fused_ring_model]") {
  // With s slots per piece, the push of step t reuses the slot of step t-s, which the receiver reads at
  // its step t-s+1; nothing else orders the two, since the sender's own wait is for its left neighbour.
  // Wherever the reduce-scatter reuses a slot (p-1 pushes > s slots), some order the other flags allow
  // finds the broken sum; where it reuses none, the credits are never waited for.
  for (int p : {3, 4, 5, 6}) {
    for (int slots : {2, 3}) {
      const RingPlan plan = plan_fused_ring(640, p, 1, 64, slots);
      bool broken = false;
      for (std::uint64_t seed = 1; seed <= 2000 && !broken; ++seed) {
        auto v = powers_of_two(p, 640);
        simulate_fused_ring(plan, v, seed, 1, /*credits=*/false);
        broken = wrong(v, std::ldexp(1.0f, p) - 1) > 0;
      }
      INFO("p = " << p << ", " << plan.slots << " slots per piece");
      CHECK(broken == (p - 1 > plan.slots));
    }
  }
}

TEST_CASE("with one staging slot reused, the credits wait around the ring: a deadlock", "[fused_ring_model]") {
  // The push of step 1 reuses step 0's slot: its credit is the receiver's push of step 1, which waits
  // for its own receiver's credit, and so on around the ring. plan_fused_ring never makes this plan.
  for (int p : {3, 4, 5}) {
    RingPlan plan = plan_fused_ring(640, p, 1, 64);
    plan.slots = 1;
    auto v = powers_of_two(p, 640);
    INFO("p = " << p);
    CHECK_THROWS_AS(simulate_fused_ring(plan, v, 1), std::logic_error);
  }
}

TEST_CASE("the fused ring's model refuses a vector per rank that is missing or short", "[fused_ring_model]") {
  std::vector<std::vector<float>> one(1, std::vector<float>(10));
  CHECK_THROWS_AS(simulate_fused_ring(plan_fused_ring(10, 2, 1), one, 1), std::invalid_argument);
  std::vector<std::vector<float>> short_ones(2, std::vector<float>(5));
  CHECK_THROWS_AS(simulate_fused_ring(plan_fused_ring(10, 2, 1), short_ones, 1), std::invalid_argument);
}
