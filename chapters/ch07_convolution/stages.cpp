// The chapter's stage table: drivers and tests iterate over it, so adding a stage is one row here.

#include "ch07_convolution/convolution.hpp"
#include "pmpp/launch_config.hpp"

namespace pmpp::ch07 {

namespace {
const std::vector<Stage> kStages = {
    {"01_basic", "basic, filter by pointer", "Fig 7.7", MAX_FILTER_RADIUS, nullptr, convolution_2D_basic,
     [](int radius, int) { return basic_op_per_byte(radius); },
     "the model counts every tap as a global load, but L1/L2 serve the (2r+1)^2-fold re-reads of each pixel"},
    {"02_constant_memory", "filter in constant memory", "Fig 7.9", MAX_FILTER_RADIUS,
     convolution_2D_const_mem_upload_filter, convolution_2D_const_mem,
     [](int radius, int) { return constant_memory_op_per_byte(radius); },
     "the filter never was DRAM traffic (an L1 broadcast), and L1/L2 serve the pixel re-reads as in 01"},
    {"03_tiled_halo", "tiled, input-sized blocks", "Fig 7.12", MAX_FILTER_RADIUS,
     convolution_tiled_2D_const_mem_upload_filter, convolution_tiled_2D_const_mem,
     [](int radius, int tile) { return tiled_op_per_byte(tile == 0 ? DEFAULT_IN_TILE_DIM : tile, radius); },
     "the model charges each tile's halo to DRAM, but the neighbouring tile just loaded it: L2 serves it"},
    {"04_cached_halo", "tiled, halo from the caches", "Fig 7.15", MAX_FILTER_RADIUS,
     convolution_cached_tiled_2D_const_mem_upload_filter, convolution_cached_tiled_2D_const_mem,
     [](int radius, int) { return cached_halo_op_per_byte(radius); },
     "model and DRAM agree: its halo reads are the L1/L2 hits the model assumes"},
    {"05_register_tiled", "register tiles, float4 loads", "beyond the text", MAX_FILTER_RADIUS,
     convolution_2D_register_tiled_upload_filter, convolution_2D_register_tiled,
     [](int radius, int) { return register_tiled_op_per_byte(radius); },
     "the model on its output tile (halo rounded up to float4s); L2 serves the halo, so DRAM reads each pixel once"},
};
}  // namespace

const std::vector<Stage>& stages() { return kStages; }

const Stage* find_stage(std::string_view id) { return find_by_id(kStages, id); }

std::vector<int> tiled_in_tile_dims() { return {8, 16, 32}; }

std::string tiled_tile_error(int in_tile_dim, int radius, int height) {
  const int tile = in_tile_dim == 0 ? DEFAULT_IN_TILE_DIM : in_tile_dim;
  bool compiled = false;
  for (int t : tiled_in_tile_dims()) compiled = compiled || t == tile;
  if (!compiled)
    return "input tile " + std::to_string(tile) + " is not compiled: stage 03 takes 8, 16 or 32 (0 means " +
           std::to_string(DEFAULT_IN_TILE_DIM) + ")";
  const int out_tile = tile - 2 * radius;
  if (out_tile <= 0)
    return "input tile " + std::to_string(tile) + " leaves no output for radius " + std::to_string(radius) +
           ": OUT_TILE_DIM = " + std::to_string(tile) + " - 2*" + std::to_string(radius) + " = " +
           std::to_string(out_tile) + "; stage 03 needs a tile larger than " + std::to_string(2 * radius);
  // CUDA allows at most 65535 blocks along y; stage 03 steps down the image by OUT_TILE_DIM rows.
  const long long blocks_y = (static_cast<long long>(height) + out_tile - 1) / out_tile;
  if (blocks_y > 65535)
    return "height " + std::to_string(height) + " needs " + std::to_string(blocks_y) + " rows of " +
           std::to_string(out_tile) + "-pixel output tiles in stage 03 (tile " + std::to_string(tile) + ", radius " +
           std::to_string(radius) + "); CUDA allows 65535";
  return "";
}

}  // namespace pmpp::ch07
