// The all-reduce's cost model against hand-computed values, the bandwidth definitions against the NCCL
// performance tests' (busbw = algbw * 2(p-1)/p), and the inputs the checker recomputes.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cmath>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

using Catch::Approx;
using namespace pmpp::ch10::multi_gpu;

TEST_CASE("a ring sends 2(p-1)/p of the vector from every rank", "[cost_model]") {
  const double gib = 1073741824.0;
  CHECK(ring_bytes_per_rank(gib, 1) == 0);
  CHECK(ring_bytes_per_rank(gib, 2) == gib);
  CHECK(ring_bytes_per_rank(gib, 4) == 1.5 * gib);
  CHECK(ring_bytes_per_rank(gib, 8) == 1.75 * gib);
}

TEST_CASE("the plan sends what the formula says, when the vector divides evenly", "[cost_model]") {
  for (int p : {2, 3, 4, 8}) {
    const std::size_t n = static_cast<std::size_t>(p) * kAlignElements * 1000;
    const RingPlan plan = plan_ring(n, p, 4096);
    for (int r = 0; r < p; ++r)
      CHECK(static_cast<double>(planned_bytes_sent(plan, r)) == ring_bytes_per_rank(4.0 * n, p));
  }
  // Unevenly: every step still moves each segment once, so the ranks together send 2(p-1) vectors.
  const RingPlan odd = plan_ring(100003, 3, 1000);
  std::size_t total = 0;
  for (int r = 0; r < 3; ++r) total += planned_bytes_sent(odd, r);
  CHECK(total == 2u * 2u * 100003u * sizeof(float));
}

TEST_CASE("algorithm and bus bandwidth as the NCCL performance tests define them", "[cost_model]") {
  CHECK(algorithm_bandwidth(1e9, 1.0) == Approx(1000.0));
  CHECK(algorithm_bandwidth(1e9, 0.0) == 0.0);
  CHECK(bus_bandwidth(100.0, 8) == Approx(175.0));
  CHECK(bus_bandwidth(100.0, 2) == Approx(100.0));
  CHECK(bus_bandwidth(100.0, 1) == 0.0);
  // A ring that runs exactly at the link's bandwidth has a bus bandwidth equal to it.
  const double bytes = 268435456.0, link = 300.0;
  const double ms = predicted_ring_ms(bytes, 4, link);
  CHECK(ms == Approx(1.5 * bytes / 300e9 * 1e3));
  CHECK(bus_bandwidth(algorithm_bandwidth(bytes, ms), 4) == Approx(link));
}

TEST_CASE("where each byte goes: 20 DRAM bytes per float sent in the copy-engine ring's reduce-scatter, 12 fused",
          "[cost_model]") {
  const StepBytes copy_rs = step_bytes(RingKind::copy_engine, true), fused_rs = step_bytes(RingKind::fused, true);
  CHECK(copy_rs.link_out == 4);
  CHECK(copy_rs.link_in == 4);
  CHECK(copy_rs.dram_read == 12);  // the copy's source, then staging and the vector for the add
  CHECK(copy_rs.dram_write == 8);  // staging, then the sum
  CHECK(fused_rs.dram_read == 8);  // the own copy and the staged piece
  CHECK(fused_rs.dram_write == 4); // the piece the left neighbour pushes into staging
  for (RingKind ring : {RingKind::copy_engine, RingKind::fused}) {
    const StepBytes ag = step_bytes(ring, false);
    CHECK(ag.dram() == 8);  // a copy: read where it is, written where it goes
    CHECK(ag.link_out == 4);
  }
  // Over a whole all-reduce: (p-1)/p of the vector in each phase; the fused ring's first push reads no
  // staging and its finishing step writes the sum twice: 4 bytes more per segment float, (20p-16)/p.
  CHECK(all_reduce_dram_bytes_per_float(RingKind::copy_engine, 2) == Approx(14.0));
  CHECK(all_reduce_dram_bytes_per_float(RingKind::fused, 2) == Approx(12.0));
  CHECK(all_reduce_dram_bytes_per_float(RingKind::fused, 4) == Approx(16.0));
  CHECK(all_reduce_dram_bytes_per_float(RingKind::fused, 1) == 0.0);
}

TEST_CASE("inputs: exact ones are small integers, float ones multiples of 2^-23 from -1 up to 1", "[inputs]") {
  int distinct_ranks = 0;
  for (std::size_t i = 0; i < 10000; ++i) {
    const float x = all_reduce_input(3, 0, i, true);
    CHECK(x == std::nearbyint(x));
    CHECK(std::fabs(x) <= 4);
    const float f = all_reduce_input(3, 1, i, false);
    CHECK(f >= -1.0f);
    CHECK(f < 1.0f);
    CHECK(std::ldexp(f + 1.0f, 23) == std::nearbyint(std::ldexp(f + 1.0f, 23)));
    distinct_ranks += all_reduce_input(3, 0, i, true) != all_reduce_input(3, 1, i, true);
    CHECK(all_reduce_input(3, 2, i, true) == all_reduce_input(3, 2, i, true));
  }
  CHECK(distinct_ranks > 8000);  // ranks hold different vectors (8 in 9 differ at random)
  CHECK(all_reduce_input(3, 0, 5, false) != all_reduce_input(4, 0, 5, false));
}
