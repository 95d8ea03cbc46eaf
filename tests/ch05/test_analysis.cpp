// The text's analysis (sections 5.1, 5.4, 6.1), computed by the code the programs print it with.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "ch05_matmul/matmul.hpp"

using Catch::Approx;
using namespace pmpp::ch05;

TEST_CASE("naive kernel: one multiply-add per two 4-byte loads, 0.25 OP/B", "[analysis]") {
  CHECK(naive_op_per_byte() == 0.25);
}

TEST_CASE("tiled kernel: TILE_WIDTH / 4 OP/B", "[analysis]") {
  CHECK(tiled_op_per_byte(1) == naive_op_per_byte());  // a 1 x 1 tile is the naive kernel
  CHECK(tiled_op_per_byte(16) == 4.0);                  // the text's 16 x 16 tiles: 16 times fewer loads
  CHECK(tiled_op_per_byte(32) == 8.0);
}

TEST_CASE("the text's bandwidth argument: intensity times DRAM bandwidth", "[analysis]") {
  // Sections 5.1 and 5.4 with the A100's 1555 GB/s: 389 GFLOP/s naive, 6220 GFLOP/s with 16 x 16 tiles.
  CHECK(memory_bound_gflops(1555, naive_op_per_byte()) == Approx(388.75));
  CHECK(memory_bound_gflops(1555, tiled_op_per_byte(16)) == Approx(6220));
}

TEST_CASE("register tiling: TILE_M TILE_N / (2 (TILE_M + TILE_N)) OP/B", "[analysis]") {
  CHECK(register_tiled_op_per_byte(128, 128) == 32.0);
  CHECK(register_tiled_op_per_byte(16, 16) == tiled_op_per_byte(16));  // square tiles: same as section 5.4
  CHECK(register_tiled_op_per_byte(128, 64) == Approx(128.0 * 64 / (2 * 192)));
}

TEST_CASE("flops and compulsory bytes", "[analysis]") {
  CHECK(flops(2, 3, 4) == 48);
  CHECK(flops(4096, 4096, 4096) == 2.0 * 4096 * 4096 * 4096);  // no 32-bit overflow
  CHECK(compulsory_bytes(2, 3, 4) == 4.0 * (8 + 12 + 6));
}

namespace {
const WarpAccess& find(const std::vector<WarpAccess>& v, const std::string& access) {
  for (const auto& w : v)
    if (w.access == access) return w;
  FAIL("no access " << access);
  return v.front();
}
}  // namespace

TEST_CASE("naive warp: B and C coalesce, A is a broadcast (two rows of 16 lanes)", "[analysis][coalescing]") {
  const auto w = naive_warp_accesses(0, 4096, 4096);
  const auto& a = find(w, "A load");
  CHECK(a.distinct_elements == 2);
  CHECK(a.sectors == 2);
  CHECK(a.verdict() == "broadcast");
  const auto& b = find(w, "B load");
  CHECK(b.distinct_elements == 16);  // both rows of the warp read the same 16 floats of B
  CHECK(b.sectors == 2);
  CHECK(b.verdict() == "coalesced");
  const auto& c = find(w, "C store");
  CHECK(c.distinct_elements == 32);
  CHECK(c.sectors == 4);
  CHECK(c.verdict() == "coalesced");
}

TEST_CASE("tiled warp: both loads coalesce for either TILE_WIDTH", "[analysis][coalescing]") {
  for (int tile : {16, 32}) {
    INFO("TILE_WIDTH " << tile);
    for (const auto& w : tiled_warp_accesses(tile, 4096, 4096)) {
      INFO(w.access);
      CHECK(w.distinct_elements == 32);
      CHECK(w.sectors == 4);
      CHECK(w.used_fraction == 1.0);
    }
  }
}

TEST_CASE("tiled warp: an odd K misaligns the second row of A", "[analysis][coalescing]") {
  // Row 1 of A starts at byte 4 * 4097, so its 64 bytes span three sectors: 5 sectors for 4 sectors' data.
  const auto& a = find(tiled_warp_accesses(16, 4096, 4097), "A load");
  CHECK(a.sectors == 5);
  CHECK(a.used_fraction == Approx(0.8));
  CHECK(a.verdict() == "partly coalesced");
}

TEST_CASE("register-tiled warp: float4 accesses use every byte of 16 sectors", "[analysis][coalescing]") {
  for (const auto& w : register_tiled_warp_accesses(0, 4096, 4096)) {
    INFO(w.access);
    CHECK(w.bytes_per_lane == 16);
    CHECK(w.distinct_elements == 128);
    CHECK(w.sectors == 16);
    CHECK(w.verdict() == "coalesced");
  }
}

TEST_CASE("warp_access counts sectors and shared addresses", "[analysis][coalescing]") {
  CHECK(warp_access("x", "", 4, [](int) { return std::int64_t{0}; }).sectors == 1);
  CHECK(warp_access("x", "", 4, [](int l) { return std::int64_t{l} * 8; }).sectors == 32);  // stride 32 B
  CHECK(warp_access("x", "", 4, [](int l) { return std::int64_t{l} * 8; }).used_fraction == Approx(0.125));
  CHECK(warp_access("x", "", 4, [](int l) { return std::int64_t{l} * 8; }).verdict() == "partly coalesced");
}

TEST_CASE("register-tiled warp: the scalar path when N or K is not a multiple of 4", "[analysis][coalescing]") {
  for (const auto& w : register_tiled_warp_accesses(0, 45, 33)) {
    INFO(w.access);
    CHECK(w.bytes_per_lane == 4);
    CHECK(w.index.find("scalar") != std::string::npos);
  }
}

TEST_CASE("warp-tiled warp: B and C move whole sectors; an A copy uses half of each", "[analysis][coalescing]") {
  // A warp copies one k-quad (16 bytes) of 32 A rows: 32 sectors, half of each used; the other half is
  // the next k-quad, copied by another warp of the block (an L1 hit, not more DRAM traffic).
  const auto w = warp_tiled_warp_accesses(0, 4096, 4096);
  const auto& a = find(w, "A load");
  CHECK(a.bytes_per_lane == 16);
  CHECK(a.sectors == 32);
  CHECK(a.used_fraction == Approx(0.5));
  CHECK(a.verdict() == "partly coalesced");
  for (const char* name : {"B load", "C store"}) {
    INFO(name);
    CHECK(find(w, name).sectors == 16);
    CHECK(find(w, name).verdict() == "coalesced");
  }
  for (const auto& scalar : warp_tiled_warp_accesses(0, 45, 33)) CHECK(scalar.index.find("scalar") != std::string::npos);
}

TEST_CASE("async-copy warp: every access moves whole 128-byte lines", "[analysis][coalescing]") {
  // A warp copies 8 consecutive k-quads of 4 A rows (4 x 128 bytes), 32 consecutive chunks of a B row;
  // even the scalar copies of A take 32 consecutive floats of one row.
  const auto vector = async_copy_warp_accesses(0, 4096, 4096);
  for (const char* name : {"A copy", "B copy", "C store"}) {
    INFO(name);
    const auto& v = find(vector, name);
    CHECK(v.bytes_per_lane == 16);
    CHECK(v.sectors == 16);
    CHECK(v.verdict() == "coalesced");
  }
  const auto scalar = async_copy_warp_accesses(0, 45, 33);
  for (const auto& w : scalar) CHECK(w.index.find("scalar") != std::string::npos);
  CHECK(find(scalar, "A copy").sectors == 4);
  CHECK(find(scalar, "A copy").verdict() == "coalesced");
}

TEST_CASE("sectors per load request: the mean over a warp's load instructions", "[analysis][coalescing]") {
  CHECK(sectors_per_load(naive_warp_accesses(0, 4096, 4096)) == 2.0);   // A broadcast 2, B 2
  CHECK(sectors_per_load(tiled_warp_accesses(16, 4096, 4096)) == 4.0);
  CHECK(sectors_per_load(warp_tiled_warp_accesses(0, 4096, 4096)) == 24.0);  // A 32, B 16
  // Stage 05 moves its operands with cp.async, which the counters count apart from loads: no prediction.
  CHECK(sectors_per_load(async_copy_warp_accesses(0, 4096, 4096)) < 0);
}

TEST_CASE("bank conflicts: none predicted, except stage 05's unaligned 4-byte copies", "[analysis]") {
  for (const auto& s : stages()) {
    INFO(s.id);
    CHECK(s.bank_conflicts(4096, 4096) == 0);
    CHECK(std::string(s.shared_access).size() > 0);
  }
  CHECK(no_bank_conflicts(4093, 4097) == 0);
  CHECK(async_copy_bank_conflicts(4093, 4097) == -1);
  CHECK(async_copy_bank_conflicts(4096, 4097) == -1);
  CHECK(std::string(find_stage("01_naive")->shared_access) == "-");  // no shared memory
}
