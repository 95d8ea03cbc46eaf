// The ring's plan, checked on the CPU for every rank count up to 8 and awkward lengths: segments and
// pieces tile the vector, every piece starts aligned, each step sends every segment once, and the plan
// run on the CPU (simulate_ring) leaves the element-wise sum on every rank.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

using namespace pmpp::ch10::multi_gpu;

namespace {
const std::vector<std::size_t> kLengths = {0, 1, 2, 3, 63, 64, 65, 127, 128, 129, 255, 257, 1000, 4093, 28677, 100003};

// Rank r's vector: element i is 2^r, so every sum of contributions is a distinct integer: 2^p - 1 says
// that each rank's element was added exactly once, and a missing or repeated one shows as another value.
std::vector<std::vector<float>> powers_of_two(int p, std::size_t n) {
  std::vector<std::vector<float>> v(p);
  for (int r = 0; r < p; ++r) v[r].assign(n, std::ldexp(1.0f, r));
  return v;
}
}  // namespace

TEST_CASE("segments and pieces tile the vector, pieces start 256-byte aligned", "[ring_plan]") {
  for (int p = 1; p <= 8; ++p) {
    for (std::size_t n : kLengths) {
      for (std::size_t chunk : {std::size_t{0}, std::size_t{64}, std::size_t{100}, std::size_t{4096}}) {
        const RingPlan plan = plan_ring(n, p, chunk);
        INFO("p = " << p << ", n = " << n << ", chunk " << chunk);
        REQUIRE(plan.chunks <= kMaxChunks);
        std::size_t next = 0;
        for (int s = 0; s < p; ++s) {
          const Range segment = plan.segment(s);
          CHECK(segment.begin == next);
          CHECK(segment.size() <= plan.segment_elements);
          next = segment.end;
          std::size_t inside = segment.begin;
          for (int c = 0; c < plan.chunks; ++c) {
            const Range piece = plan.piece(s, c);
            CHECK(piece.begin == inside);
            CHECK(piece.size() <= plan.chunk_elements);
            if (!piece.empty()) CHECK(piece.begin % kAlignElements == 0);  // empty ones sit at the end
            inside = piece.end;
          }
          if (plan.chunks > 0) CHECK(inside == segment.end);
        }
        CHECK(next == n);
      }
    }
  }
}

TEST_CASE("nothing to move: one rank, or an empty vector", "[ring_plan]") {
  CHECK(plan_ring(1000, 1).messages() == 0);
  CHECK(plan_ring(1000, 1).staging_elements() == 0);
  CHECK(plan_ring(0, 4).messages() == 0);
  CHECK(plan_ring(1, 4).messages() == 2 * 3);  // one element still goes around: 2(p-1) steps, 1 piece each
}

TEST_CASE("each step sends every segment exactly once, and a rank receives what its left neighbour sent",
          "[ring_plan]") {
  for (int p = 1; p <= 8; ++p) {
    const RingPlan plan = plan_ring(1000, p);
    for (int step = 0; step < plan.steps(); ++step) {
      std::set<int> sent;
      for (int r = 0; r < p; ++r) {
        sent.insert(plan.send_segment(r, step));
        CHECK(plan.receive_segment(r, step) == plan.send_segment((r + p - 1) % p, step));
      }
      CHECK(static_cast<int>(sent.size()) == p);
    }
    // Rank r completes segment r + 1 with its add at the last reduce-scatter step, and sends it first in
    // the all-gather; the one segment it never receives during the reduce-scatter is its own, which it
    // started the chain of adds with.
    for (int r = 0; r < p && p > 1; ++r) {
      CHECK(plan.receive_segment(r, p - 2) == (r + 1) % p);
      CHECK(plan.send_segment(r, p - 1) == (r + 1) % p);
      for (int step = 0; step < p - 1; ++step) CHECK(plan.receive_segment(r, step) != r);
    }
  }
}

TEST_CASE("the plan run on the CPU adds every rank's element exactly once, on every rank", "[ring_plan]") {
  for (int p = 1; p <= 8; ++p) {
    for (std::size_t n : kLengths) {
      for (std::size_t chunk : {std::size_t{0}, std::size_t{64}}) {
        for (int slots : {1, 2, 4}) {
          const RingPlan plan = plan_ring(n, p, chunk, slots);
          auto v = powers_of_two(p, n);
          simulate_ring(plan, v);
          const float all = std::ldexp(1.0f, p) - 1;
          std::size_t wrong = 0;
          for (int r = 0; r < p; ++r)
            for (float x : v[r]) wrong += x != all;
          INFO("p = " << p << ", n = " << n << ", chunk " << chunk << ", slots " << slots);
          CHECK(wrong == 0);
        }
      }
    }
  }
}

TEST_CASE("the plan run on the CPU gives the element-wise sum of different inputs", "[ring_plan]") {
  for (int p : {2, 3, 5, 8}) {
    const std::size_t n = 28677;
    std::vector<std::vector<float>> v(p, std::vector<float>(n));
    std::vector<float> want(n, 0.0f);
    for (int r = 0; r < p; ++r)
      for (std::size_t i = 0; i < n; ++i) {
        v[r][i] = all_reduce_input(7, r, i, true);
        want[i] += v[r][i];
      }
    simulate_ring(plan_ring(n, p, 256, 2), v);
    for (int r = 0; r < p; ++r) CHECK(v[r] == want);
  }
}

TEST_CASE("the default message size: about 8 per segment, at least 4 MiB, at most 64 messages", "[ring_plan]") {
  // 256 MiB over 2 ranks: 128 MiB segments in 8 messages of 16 MiB.
  const RingPlan big = plan_ring(std::size_t{1} << 26, 2);
  CHECK(big.chunk_elements == std::size_t{1} << 22);
  CHECK(big.chunks == 8);
  // 4 GiB over 2 ranks: 2 GiB segments would take 128 messages of 16 MiB; the cap makes them 32 MiB.
  const RingPlan huge = plan_ring(std::size_t{1} << 30, 2, std::size_t{1} << 22);
  CHECK(huge.chunks == kMaxChunks);
  CHECK(huge.chunk_elements == std::size_t{1} << 23);
  // 64 MiB over 2 ranks: 32 MiB segments in 8 messages of 4 MiB; 16 MiB: 8 MiB segments in 2 messages,
  // not 8 of 1 MiB, since each message costs the same fixed time whatever its size.
  CHECK(plan_ring(std::size_t{1} << 24, 2).chunks == 8);
  const RingPlan medium = plan_ring(std::size_t{1} << 22, 2);
  CHECK(medium.chunk_elements == std::size_t{1} << 20);
  CHECK(medium.chunks == 2);
  // A small vector: one message per segment, no larger than the segment.
  const RingPlan small = plan_ring(1000, 4);
  CHECK(small.chunks == 1);
  CHECK(small.chunk_elements == small.segment_elements);
}

TEST_CASE("a ring without ranks or without staging is refused", "[ring_plan]") {
  CHECK_THROWS_AS(plan_ring(10, 0), std::invalid_argument);
  CHECK_THROWS_AS(plan_ring(10, 2, 0, 0), std::invalid_argument);
  std::vector<std::vector<float>> one(1, std::vector<float>(10));
  CHECK_THROWS_AS(simulate_ring(plan_ring(10, 2), one), std::invalid_argument);
}
