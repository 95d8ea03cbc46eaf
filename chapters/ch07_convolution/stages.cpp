// The chapter's stage table: programs, tests, the profiler and the book iterate over it. Each stage has
// one section here (the launchers its .cu file defines, what its counters should show, how to read its
// time) and one row in the table at the end, so adding a stage is a .cu file, a section, a row and a
// line in CMakeLists.txt.
#include <algorithm>
#include <string>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/report.hpp"  // fixed(): numbers in the explanations, rounded as the tables round them

namespace pmpp::ch07 {

namespace {

// ---- What the stages share ------------------------------------------------------------------------

/// Byte offset of pixel (row, col) in a width-wide image. The replays below place their blocks some
/// way from the image's origin and ignore its far edges: they describe a warp in the middle of a large
/// image, every lane active and every index positive.
long long pixel_byte(long long row, long long col, int width) { return (row * width + col) * 4; }

/// Accumulates a replay: requests issued and the sectors they touched.
struct SectorCount {
  double requests = 0, sectors = 0;
  void add(const std::vector<long long>& first_bytes, int bytes_per_lane) {
    if (first_bytes.empty()) return;  // no active lane: no request
    requests += 1;
    sectors += sectors_touched(first_bytes, bytes_per_lane);
  }
  double per_request() const { return requests > 0 ? sectors / requests : 0; }
};

/// Stages 01 and 02: every tap of a 32-pixel warp row is one load request of 32 consecutive floats,
/// shifted by the tap's column: 4 sectors when that start is 32-byte aligned, 5 otherwise.
SectorCount replay_pixel_per_tap(const Conv2dArgs& p) {
  SectorCount count;
  const int r = p.radius, d = filter_dim(r);
  for (int row = 256; row < 264; ++row)  // eight rows: every alignment of a row's start
    for (int bx = 8; bx < 16; ++bx)
      for (int fRow = 0; fRow < d; ++fRow)
        for (int fCol = 0; fCol < d; ++fCol) {
          std::vector<long long> lanes;
          for (int tx = 0; tx < BASIC_BLOCK_DIM; ++tx)
            lanes.push_back(pixel_byte(row - r + fRow, bx * BASIC_BLOCK_DIM + tx - r + fCol, p.width));
          count.add(lanes, 4);
        }
  return count;
}

std::string constant_cache_for(int radius) {
  const int taps = filter_dim(radius) * filter_dim(radius);
  return "the " + std::to_string(taps) + "-float filter fits: only cold misses, ~100 % hits (7.3)";
}

}  // namespace

// ---- 01_basic (01_basic.cu) -----------------------------------------------------------------------

LaunchConfig convolution_2D_basic(const Conv2dArgs& args);
void convolution_2D_basic_round_trip(const float* in, const float* filter, float* out, int width, int height,
                                     int radius);

namespace {
CounterPrediction basic_counters(const Conv2dArgs& p) {
  SectorCount count = replay_pixel_per_tap(p);
  // Each tap also loads its filter value by pointer: one address for the whole warp, one sector.
  count.requests *= 2;
  count.sectors += count.requests / 2;
  return {count.per_request(), 32, 0, "", "not used for the filter, which comes by pointer (global loads)",
          "every tap is two load requests: the pixel row (4 or 5 sectors) and the filter value (1 sector)"};
}

std::string explain_basic(const Observed& o) {
  // Section 7.2's model: 8 bytes from global memory per tap. Were that DRAM traffic, it would take:
  const int taps = filter_dim(o.radius) * filter_dim(o.radius);
  const double model_gb = static_cast<double>(o.width) * o.height * taps * 8.0 / 1e9;
  const double model_ms = model_gb / o.peak_dram_gbps * 1e3;
  if (o.ms < model_ms)
    return "at the text's 0.25 OP/B it would move " + fixed(model_gb, 1) + " GB through DRAM, " + fixed(model_ms, 3) +
           " ms at peak; it took " + fixed(o.ms, 3) + " ms, so L1 and the " + fixed(o.l2_mib, 0) +
           " MiB L2 served most of the " + std::to_string(taps) + " reads of each pixel.";
  return fixed(o.ms, 3) + " ms, as slow as the text's 0.25 OP/B predicts (" + fixed(model_ms, 3) +
         " ms at peak DRAM): the caches did not catch its re-reads here.";
}
}  // namespace

// ---- 02_constant_memory (02_constant_memory.cu) -----------------------------------------------------

void convolution_2D_const_mem_upload_filter(const float* host_filter, int radius);
LaunchConfig convolution_2D_const_mem(const Conv2dArgs& args);

namespace {
CounterPrediction constant_memory_counters(const Conv2dArgs& p) {
  return {replay_pixel_per_tap(p).per_request(), 32, 0, "", constant_cache_for(p.radius), ""};
}

std::string explain_constant_memory(const Observed&) {
  return "Every lane of a warp reads the same filter value, an L1 broadcast in stage 01 already: the constant "
         "cache saves a load instruction per tap, not DRAM bytes, and the compile-time FILTER_RADIUS lets the "
         "compiler unroll the tap loops.";
}
}  // namespace

// ---- 03_tiled_halo (03_tiled_halo.cu) ---------------------------------------------------------------

void convolution_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius);
LaunchConfig convolution_tiled_2D_const_mem(const Conv2dArgs& args);

std::vector<int> tiled_in_tile_dims() { return {32, 16, 8}; }

std::string tiled_tile_error(int in_tile_dim, int radius, int height) {
  const int tile = in_tile_dim == 0 ? DEFAULT_IN_TILE_DIM : in_tile_dim;
  const std::vector<int> compiled = tiled_in_tile_dims();
  if (std::find(compiled.begin(), compiled.end(), tile) == compiled.end())
    return "input tile " + std::to_string(tile) + " is not compiled: stage 03 takes 32, 16 or 8 (0 means " +
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

namespace {
CounterPrediction tiled_counters(const Conv2dArgs& p) {
  const int r = p.radius, in = p.tile == 0 ? DEFAULT_IN_TILE_DIM : p.tile, out = in - 2 * r;
  if (out <= 0) return {};
  // One load request per warp: its lanes are consecutive threads of the in x in block, so a warp covers
  // 32 / in rows of the input tile. Then the tap loop, where only the inner out x out threads compute.
  SectorCount count;
  double computing = 0, computing_warps = 0;
  for (int by = 8; by < 16; ++by)
    for (int bx = 8; bx < 16; ++bx)
      for (int warp = 0; warp * 32 < in * in; ++warp) {
        std::vector<long long> lanes;
        int active = 0;
        for (int t = warp * 32; t < std::min(warp * 32 + 32, in * in); ++t) {
          const int tx = t % in, ty = t / in;
          lanes.push_back(pixel_byte(by * out - r + ty, bx * out - r + tx, p.width));
          active += tx >= r && tx < r + out && ty >= r && ty < r + out;
        }
        count.add(lanes, 4);
        if (active > 0) computing += active, computing_warps += 1;
      }
  return {count.per_request(), computing / computing_warps, 0,
          "each tap: the computing lanes read consecutive words of the tile, one bank each",
          constant_cache_for(r),
          "threads per warp is that of the tap loop, where the halo ring sits out; the loads and the index "
          "arithmetic use every lane, so the measured average is higher, the more so the smaller the tile"};
}

std::string explain_tiled(const Observed& o) {
  const int tile = o.tile, out = tile - 2 * o.radius;
  const double idle = 100.0 * (tile * tile - out * out) / (tile * tile);
  const bool faster = o.first_ms / o.ms >= 1.055;  // "faster than" in the line's speed-up, as printed
  return "With a " + std::to_string(tile) + "x" + std::to_string(tile) + " input tile " + fixed(idle, 0) +
         "% of its threads only load halo cells, each block waits at a barrier, and shared memory replaces "
         "loads that were L1 hits already: " +
         (faster ? "its taps read shared memory, which answers faster than L1 and needs no bounds test per tap, "
                   "and that outweighs those costs."
                 : "those costs eat what the shared-memory reuse saves.");
}
}  // namespace

// ---- 04_cached_halo (04_cached_halo.cu) -------------------------------------------------------------

void convolution_cached_tiled_2D_const_mem_upload_filter(const float* host_filter, int radius);
LaunchConfig convolution_cached_tiled_2D_const_mem(const Conv2dArgs& args);

namespace {
CounterPrediction cached_halo_counters(const Conv2dArgs& p) {
  // Per warp (one tile row): the tile load, then for every tap a request from the lanes whose tap
  // falls in the halo, if any: all 32 lanes when the tap's row is outside the tile, else the r or
  // fewer lanes at the tile's left or right edge.
  constexpr int T = CACHED_TILE_DIM;
  const int r = p.radius, d = filter_dim(r);
  SectorCount count;
  for (int by = 8; by < 10; ++by)
    for (int bx = 8; bx < 10; ++bx)
      for (int ty = 0; ty < T; ++ty) {
        std::vector<long long> tile_load;
        for (int tx = 0; tx < T; ++tx) tile_load.push_back(pixel_byte(by * T + ty, bx * T + tx, p.width));
        count.add(tile_load, 4);
        for (int fRow = 0; fRow < d; ++fRow)
          for (int fCol = 0; fCol < d; ++fCol) {
            std::vector<long long> halo;
            for (int tx = 0; tx < T; ++tx) {
              const int tileRow = ty - r + fRow, tileCol = tx - r + fCol;
              if (tileRow < 0 || tileRow >= T || tileCol < 0 || tileCol >= T)
                halo.push_back(pixel_byte(by * T + tileRow, bx * T + tileCol, p.width));
            }
            count.add(halo, 4);
          }
      }
  return {count.per_request(), 0, 0, "each tap: the lanes inside the tile read consecutive words of one row",
          constant_cache_for(r),
          "its halo taps are global loads (few lanes each) that the model leaves out; the branch between "
          "shared and global memory splits warps, so no thread count is predicted"};
}

std::string explain_cached_halo(const Observed& o) {
  // Taps of a tile that land outside it: along one axis, r(r+1) of the T(2r+1) tap positions.
  const int r = o.radius;
  const double inside = 1.0 - static_cast<double>(r) * (r + 1) / (static_cast<double>(CACHED_TILE_DIM) * filter_dim(r));
  return fixed(100.0 * (1.0 - inside * inside), 1) +
         "% of its taps fall in the halo and branch to global memory (L1/L2 hits), and every tap pays the "
         "inside-the-tile test.";
}
}  // namespace

// ---- 05_register_tiled (05_register_tiled.cu) -------------------------------------------------------

void convolution_2D_register_tiled_upload_filter(const float* host_filter, int radius);
LaunchConfig convolution_2D_register_tiled(const Conv2dArgs& args);

namespace {
CounterPrediction register_tiled_counters(const Conv2dArgs& p) {
  // The tile copy as InputTileLoad issues it: unit i of the tile (a float4, or a float when rows are not
  // 16-byte aligned) is loaded by thread i % THREADS in round i / THREADS, row by row of the input tile.
  const int r = p.radius;
  const RegisterTiling t = register_tiling(r);
  const int threads = t.block_x * t.block_y, halo = register_tiled_pad(r);
  const int vec = p.width % 4 == 0 ? 4 : 1;
  const int units_per_row = (t.out_w() + 2 * halo) / vec, units = units_per_row * (t.out_h() + 2 * r);
  SectorCount count;
  for (int tile_row = 8; tile_row < 16; ++tile_row)
    for (int bx = 8; bx < 10; ++bx)
      for (int k = 0; k * threads < units; ++k)
        for (int warp = 0; warp * 32 < threads; ++warp) {
          std::vector<long long> lanes;
          for (int tid = warp * 32; tid < warp * 32 + 32; ++tid) {
            const int i = k * threads + tid;
            if (i >= units) break;
            lanes.push_back(pixel_byte(tile_row * t.out_h() - r + i / units_per_row,
                                       bx * t.out_w() - halo + i % units_per_row * vec, p.width));
          }
          count.add(lanes, 4 * vec);
        }
  return {count.per_request(), 32, 0,
          "float4 reads: each 8 lanes read 128 contiguous bytes of a tile row, every bank once",
          constant_cache_for(r),
          vec == 4 ? "16-byte loads: a request moves four times the bytes of a float load" : ""};
}

std::string explain_register_tiled(const Observed& o) {
  const int taps = filter_dim(o.radius) * filter_dim(o.radius);
  const RegisterTiling tiling = register_tiling(o.radius);
  // A pixel read into registers meets every output column of the thread (4) in every output row that
  // one of the filter rows added together reaches.
  const int uses = REGISTER_TILED_COARSE_X * std::min(tiling.coarse_y, tiling.filter_rows);
  std::string s = "It runs at " + fixed(100.0 * o.dram_floor_ms / o.ms, 0) + "% of the DRAM floor. ";
  if (o.fp32_floor_ms > 0)
    s += "Its other floor, " + std::to_string(taps) + " FMAs per pixel at the FP32 peak, is " +
         fixed(o.fp32_floor_ms, 4) + " ms: " +
         (o.fp32_floor_ms > o.dram_floor_ms ? "above the DRAM floor, so this filter is bound by arithmetic. "
                                            : "below the DRAM floor, so this filter is bound by DRAM. ");
  return s + "A pixel read from shared memory feeds up to " + std::to_string(uses) +
         " FMAs in registers, so instructions per output, not bytes, is what it cut.";
}
}  // namespace

// ---- 06_tensor_cores (06_tensor_cores.cu) -----------------------------------------------------------

void convolution_2D_tensor_cores_upload_filter(const float* host_filter, int radius);
LaunchConfig convolution_2D_tensor_cores(const Conv2dArgs& args);
std::string tensor_cores_skip_reason(const Conv2dArgs& problem);

namespace {
/// The text's model applied to its tile: a block loads its (64 + 8 (k-steps - 1)) x (64 + 2r) input
/// tile once for its 64 x 64 outputs.
double tensor_cores_op_per_byte(int radius, int) {
  const double out_w = TENSOR_WARPS_X * TENSOR_TILES_N * MMA_N, out_h = TENSOR_WARPS_Y * TENSOR_TILES_M * MMA_M;
  const double taps = static_cast<double>(filter_dim(radius)) * filter_dim(radius);
  const double loaded = (out_w + MMA_K * (tensor_k_steps(radius) - 1.0)) * (out_h + 2.0 * radius);
  return out_w * out_h * taps * 2.0 / (loaded * 4.0);
}

CounterPrediction tensor_cores_counters(const Conv2dArgs& p) {
  // The staging loads: consecutive threads read consecutive floats of the input tile, row after row,
  // from column bx * 64 - r, which is rarely 32-byte aligned.
  const int r = p.radius, steps = tensor_k_steps(r);
  const int in_cols = TENSOR_WARPS_X * TENSOR_TILES_N * MMA_N + MMA_K * (steps - 1);
  const int in_rows = TENSOR_WARPS_Y * TENSOR_TILES_M * MMA_M + 2 * r;
  SectorCount count;
  for (int bx = 8; bx < 10; ++bx)
    for (int first = 0; first < in_rows * in_cols; first += 32) {
      std::vector<long long> lanes;
      for (int e = first; e < std::min(first + 32, in_rows * in_cols); ++e)
        lanes.push_back(pixel_byte(256 - r + e / in_cols, bx * 64 - r + e % in_cols, p.width));
      count.add(lanes, 4);
    }
  return {count.per_request(), 32, 0,
          "fragment loads: 16 bytes a lane, rows g and g+1 64 bytes apart mod 128 (odd row stride): no conflict",
          "not used: the filter's Toeplitz fragments come from global memory into shared memory",
          "the staging stores (two 4-byte stores per pixel into the split layout) conflict 2-way; the counters "
          "for loads (op_ld) see none"};
}

/// Where a tensor-core stage stands between its own floor (its products, zeros included, at the TF32
/// peak), the FP32 floor and the DRAM floor.
std::string tensor_floors(const Observed& o) {
  std::string s = "Tensor floor " + fixed(o.tensor_floor_ms, 4) + " ms (" +
                  fixed(100.0 * tensor_core_useful_share(o.radius), 0) +
                  "% of its products useful: 2r+1 taps of " + std::to_string(MMA_K * tensor_k_steps(o.radius)) +
                  " columns, one product of three), FP32 floor " + fixed(o.fp32_floor_ms, 4) + " ms, DRAM floor " +
                  fixed(o.dram_floor_ms, 4) + " ms: ";
  if (o.fp32_floor_ms > 0 && o.ms < o.fp32_floor_ms) return s + "faster than any FP32-FMA kernel could be.";
  return s + "not below the FP32 floor here" +
         (o.tensor_floor_ms > 0 ? std::string(" (it ran at ") + fixed(100.0 * o.tensor_floor_ms / o.ms, 0) +
                                      "% of its tensor floor)."
                                : std::string("."));
}
}  // namespace

// ---- 07_tma_tiles (07_tma_tiles.cu) -------------------------------------------------------------------

void convolution_2D_tma_upload_filter(const float* host_filter, int radius);
LaunchConfig convolution_2D_tma(const Conv2dArgs& args);
std::string tma_tiles_skip_reason(const Conv2dArgs& problem);

namespace {
CounterPrediction tma_tiles_counters(const Conv2dArgs& p) {
  return {0, 32, 0, "float4 reads, as in stage 05: each 8 lanes read 128 contiguous bytes of a tile row",
          constant_cache_for(p.radius),
          "the TMA copies each input tile; its copies are not load instructions, so the counters for global "
          "load requests see none"};
}

std::string explain_tma_tiles(const Observed& o) {
  const TmaTiling t = tma_tiling(o.radius);
  std::string s = "One instruction per " + std::to_string(t.out_w() + 2 * register_tiled_pad(o.radius)) + " x " +
                  std::to_string(t.out_h() + 2 * o.radius) + " input tile instead of a load and a store per float4, " +
                  "and no registers held for the next tile. ";
  if (o.fp32_floor_ms > o.dram_floor_ms)
    return s + "Bound by arithmetic here: it runs at " + fixed(100.0 * o.fp32_floor_ms / o.ms, 0) +
           "% of the FP32 floor (" + fixed(o.fp32_floor_ms, 4) + " ms).";
  return s + "Bound by DRAM here: it runs at " + fixed(100.0 * o.dram_floor_ms / o.ms, 0) + "% of the DRAM floor.";
}
}  // namespace

// ---- 08_packed_wgmma (08_packed_wgmma.cu) -------------------------------------------------------------

void convolution_2D_packed_wgmma_upload_filter(const float* host_filter, int radius);
LaunchConfig convolution_2D_packed_wgmma(const Conv2dArgs& args);
std::string packed_wgmma_skip_reason(const Conv2dArgs& problem);

namespace {
/// Rows of a segment in the model below. The launcher picks them per image (packed_bands: about one
/// wave of blocks), 331 to 358 at 8192 x 8192 on a 132-SM GPU; the model changes little from 256 to 1000.
constexpr int MODEL_SEGMENT_ROWS = 256;

/// The text's model on one segment: 8 windows (64 columns) read 64 + 2r input columns of
/// MODEL_SEGMENT_ROWS + 2r input rows for 64 x MODEL_SEGMENT_ROWS outputs.
double packed_wgmma_op_per_byte(int radius, int) {
  const double out_w = PACKED_WINDOWS * MMA_N, out_h = MODEL_SEGMENT_ROWS;
  const double taps = static_cast<double>(filter_dim(radius)) * filter_dim(radius);
  return out_w * out_h * taps * 2.0 / ((out_w + 2.0 * radius) * (out_h + 2.0 * radius) * 4.0);
}

CounterPrediction packed_wgmma_counters(const Conv2dArgs& p) {
  // A row's loads: for A row m, k-step s and half h, lane (g, t) reads column 8g + 8s + t + 4h - r of
  // its segment's row: 8 runs of 4 floats, 32 bytes apart; lanes past the window's 8 + 2r columns
  // read nothing.
  const int r = p.radius;
  SectorCount count;
  for (int col0 = 512; col0 < 512 + 8 * 64; col0 += 64)
    for (int s = 0; s < tensor_k_steps(r); ++s)
      for (int h = 0; h < 2; ++h) {
        std::vector<long long> lanes;
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane / 4, k = MMA_K * s + lane % 4 + 4 * h;
          if (k < MMA_N + 2 * r) lanes.push_back(pixel_byte(256, col0 + MMA_N * g + k - r, p.width));
        }
        count.add(lanes, 4);
      }
  return {count.per_request(), 32, 0,
          "the threads only copy B in (float4 stores); the tensor cores read it through its descriptor",
          "not used: the filter's Toeplitz blocks come from global memory into shared memory",
          "each pixel is loaded by one lane of one warp, once per segment; the runs of 4 floats are why a "
          "request touches 8 or more sectors, and L1 serves the next k-step's"};
}

std::string explain_packed_wgmma(const Observed& o) {
  return "One wgmma multiplies 64 windows by all " + std::to_string(filter_dim(o.radius)) + " filter rows (N = " +
         std::to_string(MMA_N * filter_dim(o.radius)) + "), where stage 06 issues 16 x 8 x 8 mma.syncs. " +
         tensor_floors(o);
}
}  // namespace

// ---- The table ------------------------------------------------------------------------------------

namespace {
const std::vector<Stage> kStages = {
    {"01_basic", "basic, filter by pointer", "PMPP sec. 7.2, Fig 7.7", false, MAX_FILTER_RADIUS, {}, nullptr,
     nullptr, convolution_2D_basic, convolution_2D_basic_round_trip,
     [](int radius, int) { return basic_op_per_byte(radius); },
     "the model counts every tap as a global load, but L1/L2 serve the (2r+1)^2-fold re-reads of each pixel",
     basic_counters, explain_basic, nullptr, nullptr},
    {"02_constant_memory", "filter in constant memory", "PMPP sec. 7.3, Fig 7.9", false, MAX_FILTER_RADIUS, {},
     nullptr, convolution_2D_const_mem_upload_filter, convolution_2D_const_mem, nullptr,
     [](int radius, int) { return constant_memory_op_per_byte(radius); },
     "the filter never was DRAM traffic (an L1 broadcast), and L1/L2 serve the pixel re-reads as in 01",
     constant_memory_counters, explain_constant_memory, nullptr, nullptr},
    {"03_tiled_halo", "tiled, input-sized blocks", "PMPP sec. 7.4, Fig 7.12", false, MAX_FILTER_RADIUS,
     tiled_in_tile_dims(), [](const Conv2dArgs& p) { return tiled_tile_error(p.tile, p.radius, p.height); },
     convolution_tiled_2D_const_mem_upload_filter, convolution_tiled_2D_const_mem, nullptr,
     [](int radius, int tile) { return tiled_op_per_byte(tile == 0 ? DEFAULT_IN_TILE_DIM : tile, radius); },
     "the model charges each tile's halo to DRAM, but the neighbouring tile just loaded it: L2 serves it",
     tiled_counters, explain_tiled, nullptr, nullptr},
    {"04_cached_halo", "tiled, halo from the caches", "PMPP sec. 7.5, Fig 7.15", false, MAX_FILTER_RADIUS, {},
     nullptr, convolution_cached_tiled_2D_const_mem_upload_filter, convolution_cached_tiled_2D_const_mem, nullptr,
     [](int radius, int) { return cached_halo_op_per_byte(radius); },
     "model and DRAM agree: its halo reads are the L1/L2 hits the model assumes", cached_halo_counters,
     explain_cached_halo, nullptr, nullptr},
    {"05_register_tiled", "register tiles, float4 loads", "beyond PMPP: register tiles and prefetching", true,
     MAX_FILTER_RADIUS, {}, nullptr, convolution_2D_register_tiled_upload_filter, convolution_2D_register_tiled,
     nullptr, [](int radius, int) { return register_tiled_op_per_byte(radius); },
     "the model on its output tile (halo rounded up to float4s); L2 serves the halo, so DRAM reads each pixel once",
     register_tiled_counters, explain_register_tiled, nullptr, nullptr},
    {"06_tensor_cores", "tensor cores, 3xTF32", "beyond PMPP: Toeplitz products on tensor cores", true,
     MAX_FILTER_RADIUS, {}, nullptr, convolution_2D_tensor_cores_upload_filter, convolution_2D_tensor_cores, nullptr,
     tensor_cores_op_per_byte,
     "the model on its output tile (k-steps' reach rounded to 8 columns); L2 serves the halo as in 05",
     tensor_cores_counters, tensor_floors, tensor_cores_skip_reason, tensor_core_flops},
    {"07_tma_tiles", "register tiles, TMA copies", "beyond PMPP: tiles copied by the TMA (Hopper)", true,
     MAX_FILTER_RADIUS, {}, nullptr, convolution_2D_tma_upload_filter, convolution_2D_tma, nullptr,
     [](int radius, int) { return tma_tiles_op_per_byte(radius); },
     "the model on its output tile, as in 05; L2 serves the halo, so DRAM reads each pixel once",
     tma_tiles_counters, explain_tma_tiles, tma_tiles_skip_reason, nullptr},
    {"08_packed_wgmma", "wgmma, all filter rows at once", "beyond PMPP: one wgmma per input row (Hopper)", true,
     MAX_FILTER_RADIUS, {}, nullptr, convolution_2D_packed_wgmma_upload_filter, convolution_2D_packed_wgmma, nullptr,
     packed_wgmma_op_per_byte,
     "the model on a 64-column segment 256 rows tall; L2 serves the halo, so DRAM reads each pixel about once",
     packed_wgmma_counters, explain_packed_wgmma, packed_wgmma_skip_reason, tensor_core_flops},
};
}  // namespace

const std::vector<Stage>& stages() { return kStages; }

const Stage* find_stage(std::string_view id) { return find_by_id(kStages, id); }

int effective_tile(const Stage& stage, int requested) {
  if (stage.tiles.empty()) return 0;
  return requested != 0 ? requested : stage.tiles.front();
}

}  // namespace pmpp::ch07
