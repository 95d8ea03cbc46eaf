// Launchers check their preconditions on the host, before any CUDA call, so this needs no GPU.
#include <catch2/catch_test_macros.hpp>
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
  REQUIRE(stages().size() == 8);
  CHECK(std::string(stages()[0].id) == "01_naive");
  CHECK(std::string(stages()[1].id) == "02_tiled");
  CHECK(stages()[1].tiles == std::vector<int>{16, 32});
  CHECK(find_stage("03_register_tiled") == &stages()[2]);
  CHECK(find_stage("04_warp_tiled") == &stages()[3]);
  CHECK(find_stage("05_async_copy") == &stages()[4]);
  CHECK(find_stage("06_tf32_tensor_cores") == &stages()[5]);
  CHECK(find_stage("07_3xtf32") == &stages()[6]);
  CHECK(find_stage("08_wgmma_3xtf32") == &stages()[7]);
  CHECK(find_stage("09_nothing") == nullptr);
  CHECK(effective_tile(stages()[1], 0) == 16);
  CHECK(effective_tile(stages()[1], 32) == 32);
  CHECK(effective_tile(stages()[0], 32) == 0);
}
