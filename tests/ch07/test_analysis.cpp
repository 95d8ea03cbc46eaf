// The text's arithmetic-intensity numbers (sections 7.2-7.4, Fig 7.14), computed by the code the
// programs print them with.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

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

TEST_CASE("stage 05 in the text's model: its output tile with float4-rounded halo columns", "[analysis]") {
  // The tiles measured fastest: 256 x 32 outputs at r = 2, 64 x 32 at r = 4. The block loads
  // (out_w + 2*4) x (32 + 2r) pixels for out_w*32 outputs of (2r+1)^2 taps, 2 operations each.
  REQUIRE(register_tiling(2).out_w() == 256);
  REQUIRE(register_tiling(2).out_h() == 32);
  REQUIRE(register_tiling(4).out_w() == 64);
  REQUIRE(register_tiling(4).out_h() == 32);
  CHECK(register_tiled_op_per_byte(2) == Approx(256.0 * 32 * 25 * 2 / (264.0 * 36 * 4)));  // 10.8
  CHECK(register_tiled_op_per_byte(4) == Approx(64.0 * 32 * 81 * 2 / (72.0 * 40 * 4)));    // 28.8
  CHECK(register_tiled_op_per_byte(4) == Approx(28.8));
  CHECK(register_tiled_pad(1) == 4);
  CHECK(register_tiled_pad(4) == 4);
  CHECK(register_tiled_pad(5) == 8);
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    INFO("r=" << r);
    CHECK(register_tiled_op_per_byte(r) < tiled_op_per_byte_bound(r));
    // A larger tile than the text's 32x32 beats it, despite the halo columns rounded up to float4s.
    CHECK(register_tiled_op_per_byte(r) > tiled_op_per_byte(32, r));
  }
}

TEST_CASE("stage 05's tilings: every radius has one the kernel can run", "[analysis]") {
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    INFO("r=" << r);
    const RegisterTiling t = register_tiling(r);
    CHECK(t.block_x % 8 == 0);                  // 8 lanes of a row read 128 contiguous bytes of shared memory
    CHECK(t.block_x * t.block_y <= 1024);
    CHECK(t.tiles_per_block >= 1);
    CHECK(t.filter_rows >= 1);
    CHECK(t.filter_rows <= filter_dim(r));
    // The input tile fits the 48 KiB of static shared memory every GPU gives a block.
    CHECK(sizeof(float) * (t.out_w() + 2 * register_tiled_pad(r)) * (t.out_h() + 2 * r) <= 48u * 1024);
  }
  CHECK(register_tiling(3).filter_rows == filter_dim(3));  // small filters: all rows unrolled together
}

TEST_CASE("stage 07's tilings: every radius has one the TMA can copy", "[analysis]") {
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    INFO("r=" << r);
    const TmaTiling t = tma_tiling(r);
    const int in_w = t.out_w() + 2 * register_tiled_pad(r), in_h = t.out_h() + 2 * r;
    CHECK(t.block_x % 8 == 0);
    CHECK(t.block_x * t.block_y <= 1024);
    CHECK(t.filter_rows >= 1);
    CHECK(t.filter_rows <= filter_dim(r));
    CHECK(t.buffers >= 1);
    CHECK(t.buffers <= t.tiles_per_block);
    // One TMA copy moves a box of at most 256 x 256 elements, its rows a multiple of 16 bytes.
    CHECK(in_w <= 256);
    CHECK(in_h <= 256);
    CHECK(in_w * sizeof(float) % 16 == 0);
    // Its buffers fit the 99 KiB of shared memory a block may have on every GPU with a TMA (9.0 on).
    CHECK(sizeof(float) * t.buffers * in_w * in_h <= 99u * 1024);
    // The text's model on its own tile, as for stage 05.
    CHECK(tma_tiles_op_per_byte(r) ==
          Approx(t.out_w() * t.out_h() * filter_dim(r) * filter_dim(r) * 2.0 / (in_w * in_h * 4.0)));
  }
}

TEST_CASE("stage 03's tile rules", "[analysis]") {
  CHECK(tiled_in_tile_dims() == std::vector<int>{32, 16, 8});  // the text's 32 first: the default
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) CHECK(tiled_tile_error(0, r, 8192).empty());  // 0: the text's 32
  CHECK(tiled_tile_error(8, 3, 8192).empty());   // 8 - 6 = 2 outputs per side
  CHECK(tiled_tile_error(16, 7, 8192).empty());
  CHECK(tiled_tile_error(8, 4, 8192).find("leaves no output") != std::string::npos);
  CHECK(tiled_tile_error(16, 8, 8192).find("leaves no output") != std::string::npos);
  CHECK(tiled_tile_error(12, 1, 8192).find("not compiled") != std::string::npos);
  CHECK(tiled_tile_error(64, 1, 8192).find("not compiled") != std::string::npos);
  // CUDA's 65535 blocks along y: OUT_TILE_DIM = 2 rows per block cannot cover 200000 rows.
  CHECK(tiled_tile_error(8, 3, 131070).empty());
  CHECK(tiled_tile_error(8, 3, 131071).find("65535") != std::string::npos);
  CHECK(tiled_tile_error(32, 8, 65535 * 16).empty());
  CHECK(tiled_tile_error(32, 8, 65535 * 16 + 1).find("65535") != std::string::npos);
}
