// The text's arithmetic-intensity numbers (sections 7.2-7.4, Fig 7.14), computed by the code the
// programs print them with.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include "ch07_convolution/convolution.hpp"

using Catch::Approx;
using namespace pmpp::ch07;

TEST_CASE("basic and constant-memory kernels: 0.25 and 0.5 OP/B", "[analysis]") {
  CHECK(basic_op_per_byte(2) == 0.25);
  CHECK(constant_memory_op_per_byte(2) == 0.5);
}

TEST_CASE("tiled kernel: the text's printed ratios", "[analysis]") {
  CHECK(tiled_op_per_byte(32, 2) == Approx(9.57).margin(0.005));   // 5x5 filter, 32x32 input tile
  CHECK(tiled_op_per_byte(32, 4) == Approx(22.78).margin(0.005));  // 9x9 filter, 32x32 input tile
  CHECK(tiled_op_per_byte(8, 2) == Approx(3.13).margin(0.005));    // 5x5 filter, 8x8 input tile
  CHECK(tiled_op_per_byte_bound(2) == 12.5);
  CHECK(tiled_op_per_byte_bound(4) == 40.5);
}

TEST_CASE("tiled ratio grows with the tile toward its bound and is zero for an all-halo tile", "[analysis]") {
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    double previous = 0;
    for (int tile = 2 * r + 1; tile <= 1024; tile *= 2) {
      const double v = tiled_op_per_byte(tile, r);
      CHECK(v > previous);
      CHECK(v < tiled_op_per_byte_bound(r));
      previous = v;
    }
    CHECK(tiled_op_per_byte(2 * r, r) == 0);
  }
}

TEST_CASE("Fig 7.14 table has the text's entries", "[analysis]") {
  const auto tiles = fig_7_14_tiles();
  const auto rows = fig_7_14();
  auto value = [&](int radius, int tile) {
    for (const auto& row : rows)
      if (row.radius == radius)
        for (std::size_t i = 0; i < tiles.size(); ++i)
          if (tiles[i] == tile) return row.op_per_byte[i];
    return -1.0;
  };
  CHECK(value(2, 8) == Approx(3.125));
  CHECK(value(2, 32) == Approx(9.5703125));
  CHECK(value(4, 32) == Approx(22.78125));
}

TEST_CASE("flops and compulsory bytes", "[analysis]") {
  CHECK(flops(10, 20, 2) == 2.0 * 25 * 200);
  CHECK(compulsory_bytes(8192, 8192) == 8.0 * 8192 * 8192);
}
