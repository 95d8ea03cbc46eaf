// Launchers check their preconditions on the host, before any CUDA call, so this needs no GPU.
#include <catch2/catch_test_macros.hpp>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch05_matmul/matmul.hpp"

using namespace pmpp::ch05;

namespace {
float not_device_memory[4];  // never dereferenced: every call below must throw before launching
float* const p = not_device_memory;
}  // namespace

TEST_CASE("every launcher rejects sizes outside [1, MAX_DIM] and null pointers", "[preconditions]") {
  for (const auto& s : stages()) {
    INFO(s.id);
    CHECK_THROWS_AS(s.launch({p, p, p, 0, 4, 4, 0}), std::invalid_argument);
    CHECK_THROWS_AS(s.launch({p, p, p, 4, -1, 4, 0}), std::invalid_argument);
    CHECK_THROWS_AS(s.launch({p, p, p, 4, 4, MAX_DIM + 1, 0}), std::invalid_argument);
    CHECK_THROWS_AS(s.launch({nullptr, p, p, 2, 2, 2, 0}), std::invalid_argument);
    CHECK_THROWS_AS(s.launch({p, p, nullptr, 2, 2, 2, 0}), std::invalid_argument);
  }
}

TEST_CASE("the tiled stage rejects a TILE_WIDTH it is not compiled for", "[preconditions]") {
  CHECK_THROWS_AS(matmul_tiled({p, p, p, 2, 2, 2, 24}), std::invalid_argument);
  CHECK_THROWS_AS(matmul_tiled({p, p, p, 2, 2, 2, 8}), std::invalid_argument);
}

TEST_CASE("MAX_DIM rows fit the grid's y limit for every stage's block height", "[preconditions]") {
  CHECK((MAX_DIM + NAIVE_BLOCK_DIM - 1) / NAIVE_BLOCK_DIM <= 65535);
  for (const auto& s : stages())
    for (int tile : s.tiles) CHECK((MAX_DIM + tile - 1) / tile <= 65535);
  CHECK((MAX_DIM + RegisterTiling::TILE_M - 1) / RegisterTiling::TILE_M <= 65535);
  CHECK((MAX_DIM + WarpTiling::TILE_M - 1) / WarpTiling::TILE_M <= 65535);
  CHECK((MAX_DIM + AsyncCopyTiling<32>::TILE_M - 1) / AsyncCopyTiling<32>::TILE_M <= 65535);
  CHECK((MAX_DIM + Tf32Tiling::TILE_M - 1) / Tf32Tiling::TILE_M <= 65535);
  CHECK((MAX_DIM + Split3Tiling::TILE_M - 1) / Split3Tiling::TILE_M <= 65535);
  CHECK((MAX_DIM + WgmmaTiling::TILE_M - 1) / WgmmaTiling::TILE_M <= 65535);
  // Stage 09 numbers its blocks along x alone (tile_of_block places them), up to 2^31 - 1 of them.
  const auto tiles = [](int size, int tile) { return (std::int64_t{size} + tile - 1) / tile; };
  CHECK(tiles(MAX_DIM, TmaWgmmaTiling::TILE_M) * tiles(MAX_DIM, TmaWgmmaTiling::TILE_N) <= 2147483647);
}

TEST_CASE("tile_of_block gives every tile of C to exactly one block, walking groups of rows", "[preconditions]") {
  for (int rows : {1, 2, 7, 8, 9, 17, 32})
    for (int cols : {1, 3, 16})
      for (int group : {1, 8}) {
        INFO(rows << " x " << cols << " tiles, groups of " << group);
        std::vector<int> seen(static_cast<std::size_t>(rows * cols), 0);
        for (int b = 0; b < rows * cols; ++b) {
          const TilePosition t = tile_of_block(b, rows, cols, group);
          REQUIRE(t.row >= 0);
          REQUIRE(t.row < rows);
          REQUIRE(t.col >= 0);
          REQUIRE(t.col < cols);
          ++seen[static_cast<std::size_t>(t.row * cols + t.col)];
        }
        for (int count : seen) CHECK(count == 1);
      }
  // Groups of 8 rows: the first 8 blocks walk down column 0, the next 8 down column 1.
  CHECK(tile_of_block(7, 32, 16, 8).row == 7);
  CHECK(tile_of_block(7, 32, 16, 8).col == 0);
  CHECK(tile_of_block(8, 32, 16, 8).row == 0);
  CHECK(tile_of_block(8, 32, 16, 8).col == 1);
  CHECK(tile_of_block(128, 32, 16, 8).row == 8);  // the second group starts after 8 x 16 blocks
  // A last group of 1 row (9 = 8 + 1) walks along that row.
  CHECK(tile_of_block(8 * 3 + 2, 9, 3, 8).row == 8);
  CHECK(tile_of_block(8 * 3 + 2, 9, 3, 8).col == 2);
}

TEST_CASE("the asynchronous-copy stage takes K slices of 16 or 32 only", "[preconditions]") {
  CHECK_THROWS_AS(matmul_async_copy_slices({p, p, p, 2, 2, 2, 0}, 8), std::invalid_argument);
  CHECK_THROWS_AS(matmul_async_copy_slices({p, p, p, 2, 2, 2, 0}, 64), std::invalid_argument);
  CHECK_THROWS_AS(matmul_async_copy_slices({p, p, p, 0, 2, 2, 0}, 32), std::invalid_argument);
  // Two buffers of A (128 x k) and B (k x 256): 96 KB for slices of 32, the 48 KB every GPU gives for 16.
  CHECK(async_copy_shared_bytes(32) == 98304);
  CHECK(async_copy_shared_bytes(16) == 49152);
}

TEST_CASE("the stage table lists the text's stages in order, then the tensor-core ones", "[preconditions]") {
  REQUIRE(stages().size() == 9);
  CHECK(std::string(stages()[0].id) == "01_naive");
  CHECK(std::string(stages()[1].id) == "02_tiled");
  CHECK(stages()[1].tiles == std::vector<int>{16, 32});
  CHECK(find_stage("03_register_tiled") == &stages()[2]);
  CHECK(find_stage("04_warp_tiled") == &stages()[3]);
  CHECK(find_stage("05_async_copy") == &stages()[4]);
  CHECK(find_stage("06_tf32_tensor_cores") == &stages()[5]);
  CHECK(find_stage("07_3xtf32") == &stages()[6]);
  CHECK(find_stage("08_wgmma_3xtf32") == &stages()[7]);
  CHECK(find_stage("09_tma_wgmma_tf32") == &stages()[8]);
  CHECK(find_stage("10_nothing") == nullptr);
  CHECK(effective_tile(stages()[1], 0) == 16);
  CHECK(effective_tile(stages()[1], 32) == 32);
  CHECK(effective_tile(stages()[0], 32) == 0);
}
