// The text's arithmetic-intensity model for each stage (section 7.2 to 7.5), as code so that tests can
// check it against the printed numbers and programs can print it next to what they measured; and the
// sector count with which the stages predict what the profiler measures.
#include "ch07_convolution/convolution.hpp"

#include <set>

namespace pmpp::ch07 {

double flops(int width, int height, int radius) {
  const double taps = static_cast<double>(filter_dim(radius)) * filter_dim(radius);
  return 2.0 * taps * width * height;
}

double compulsory_bytes(int width, int height) { return 2.0 * sizeof(float) * width * height; }

double basic_op_per_byte(int) { return 2.0 / 8.0; }

double constant_memory_op_per_byte(int) { return 2.0 / 4.0; }

//! [tiled_op_per_byte]
double tiled_op_per_byte(int in_tile_dim, int radius) {
  const double out_tile = in_tile_dim - 2.0 * radius;
  if (out_tile <= 0) return 0;  // the tile is all halo: no output at all
  const double taps = static_cast<double>(filter_dim(radius)) * filter_dim(radius);
  return out_tile * out_tile * taps * 2.0 / (static_cast<double>(in_tile_dim) * in_tile_dim * 4.0);
}
//! [tiled_op_per_byte]

double tiled_op_per_byte_bound(int radius) {
  return static_cast<double>(filter_dim(radius)) * filter_dim(radius) / 2.0;
}

double cached_halo_op_per_byte(int radius) { return tiled_op_per_byte_bound(radius); }

namespace {
/// An out_w x out_h output tile computed from its input tile, loaded once: r columns of halo rounded up
/// to float4s on either side, r rows above and below.
double register_tile_op_per_byte(int out_w, int out_h, int radius) {
  const double taps = static_cast<double>(filter_dim(radius)) * filter_dim(radius);
  const double outputs = static_cast<double>(out_w) * out_h;
  const double loaded = (out_w + 2.0 * register_tiled_pad(radius)) * (out_h + 2.0 * radius);
  return outputs * taps * 2.0 / (loaded * 4.0);
}
}  // namespace

double register_tiled_op_per_byte(int radius) {
  const RegisterTiling t = register_tiling(radius);
  return register_tile_op_per_byte(t.out_w(), t.out_h(), radius);
}

double tma_tiles_op_per_byte(int radius) {
  const TmaTiling t = tma_tiling(radius);
  return register_tile_op_per_byte(t.out_w(), t.out_h(), radius);
}

std::vector<int> fig_7_14_tiles() { return {8, 16, 32, 64}; }

std::vector<Fig714Row> fig_7_14() {
  std::vector<Fig714Row> rows;
  for (int radius : {1, 2, 3, 4, 5}) {
    Fig714Row row{radius, {}, tiled_op_per_byte_bound(radius)};
    for (int tile : fig_7_14_tiles()) row.op_per_byte.push_back(tiled_op_per_byte(tile, radius));
    rows.push_back(row);
  }
  return rows;
}

int sectors_touched(const std::vector<long long>& first_bytes, int bytes_per_lane) {
  std::set<long long> sectors;
  for (long long first : first_bytes)
    for (long long b = first / 32; b <= (first + bytes_per_lane - 1) / 32; ++b) sectors.insert(b);
  return static_cast<int>(sectors.size());
}

}  // namespace pmpp::ch07
