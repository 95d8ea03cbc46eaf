// Stages 06 and 08's host side: the TF32 split, the Toeplitz matrices of the filter's rows, their layout
// as the mma instruction's B fragments (06) and as the wgmma's shared-memory B (08), and both
// formulations replayed on the CPU: 06 lane by lane as the PTX ISA defines the m16n8k8 fragments, 08's
// ring of accumulators row by row. No GPU needed.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/random.hpp"
#include "float_bits.hpp"

using namespace pmpp::ch07;

namespace {
using pmpp_test::bits_of;

/// One 16 x 8 output block at (y0, x0) of the image, computed as stage 06 computes it: for each filter
/// row and k-step, A (16 x 8) gathered lane by lane from the split input (a0: row g, column t; a1: row
/// g + 8; a2, a3: column t + 4), B from the fragment table (b0: row t, column g; b1: row t + 4), the three
/// products summed in double, and D scattered back (c0, c1: row g, columns 2t, 2t + 1; c2, c3: row g + 8).
void replay_block(const std::vector<float>& in, const std::vector<float>& table, int w, int h, int r, int y0,
                  int x0, std::vector<double>& out) {
  const int steps = tensor_k_steps(r);
  const auto pixel = [&](int y, int x) { return y >= 0 && y < h && x >= 0 && x < w ? in[std::size_t(y) * w + x] : 0.0f; };
  double d[32][4] = {};
  for (int i = 0; i < filter_dim(r); ++i)
    for (int s = 0; s < steps; ++s) {
      Tf32Split a[32][4];
      float b[32][4];
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        // The window of outputs x0..x0+7 starts r columns left; k-step s adds 8 s.
        const int y = y0 + g - r + i, x = x0 - r + MMA_K * s + t;
        a[lane][0] = split_tf32(pixel(y, x));
        a[lane][1] = split_tf32(pixel(y + 8, x));
        a[lane][2] = split_tf32(pixel(y, x + 4));
        a[lane][3] = split_tf32(pixel(y + 8, x + 4));
        for (int q = 0; q < 4; ++q) b[lane][q] = table[((std::size_t(i) * steps + s) * 32 + lane) * 4 + q];
      }
      double A_big[16][8], A_small[16][8], B_big[8][8], B_small[8][8];
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        const int rows[4] = {g, g + 8, g, g + 8}, cols[4] = {t, t, t + 4, t + 4};
        for (int q = 0; q < 4; ++q) A_big[rows[q]][cols[q]] = a[lane][q].big, A_small[rows[q]][cols[q]] = a[lane][q].small;
        B_big[t][g] = b[lane][0], B_big[t + 4][g] = b[lane][1];
        B_small[t][g] = b[lane][2], B_small[t + 4][g] = b[lane][3];
      }
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        const int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
        for (int q = 0; q < 4; ++q)
          for (int k = 0; k < MMA_K; ++k)
            d[lane][q] += A_small[rows[q]][k] * B_big[k][cols[q]] + A_big[rows[q]][k] * B_small[k][cols[q]] +
                          A_big[rows[q]][k] * B_big[k][cols[q]];
      }
    }
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    const int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
    for (int q = 0; q < 4; ++q) {
      const int y = y0 + rows[q], x = x0 + cols[q];
      if (y < h && x < w) out[std::size_t(y) * w + x] = d[lane][q];
    }
  }
}

/// Stage 08's B element (k, n) of stored block q, part (0 big, 1 small), read where the wgmma's
/// descriptor finds it: core matrices of 8 n x 4 k, 128 bytes apart along N, packed_stored_blocks x 128
/// bytes apart along K; k-step s's big part, then its small part.
float packed_b(const std::vector<float>& table, int r, int part, int q, int k, int n) {
  const int s = k / MMA_K, c = k % MMA_K / 4;
  return table[((static_cast<std::size_t>(s * 2 + part) * 2 + c) * packed_stored_blocks(r) + q) * 32 + n * 4 + k % 4];
}

/// One window of 8 outputs (columns x0 .. x0 + 7) down rows 0 .. rows - 1, computed as stage 08 computes
/// it: input row j (from row -r) times B from stored block (2r - j mod (2r + 1)) + b into ring block b,
/// the three products summed in double; after row j, ring block (j + 1) mod (2r + 1) is output row
/// j - 2r, and is zeroed. A is split as the stage splits it: big cut to TF32, small = v - big, which the
/// tensor cores cut.
void replay_ring(const std::vector<float>& in, const std::vector<float>& table, int w, int h, int r, int x0,
                 int rows, std::vector<double>& out) {
  const int ring_size = filter_dim(r), window = MMA_N + 2 * r;
  std::vector<std::vector<double>> ring(ring_size, std::vector<double>(MMA_N, 0.0));
  for (int j = 0; j < rows + 2 * r; ++j) {
    const int y = j - r, rotation = (ring_size - 1 - j % ring_size) % ring_size;
    for (int k = 0; k < MMA_K * tensor_k_steps(r); ++k) {
      const int x = x0 - r + k;
      const float v = k < window && y >= 0 && y < h && x >= 0 && x < w ? in[std::size_t(y) * w + x] : 0.0f;
      const float a_big = pmpp::tf32_cut(v), a_small = pmpp::tf32_cut(v - a_big);
      for (int b = 0; b < ring_size; ++b)
        for (int n = 0; n < MMA_N; ++n) {
          const double big = packed_b(table, r, 0, rotation + b, k, n);
          const double small = packed_b(table, r, 1, rotation + b, k, n);
          ring[b][n] += double{a_small} * big + double{a_big} * small + double{a_big} * big;
        }
    }
    const int done = (j + 1) % ring_size, o = j - 2 * r;
    for (int n = 0; n < MMA_N; ++n) {
      if (o >= 0 && o < h && x0 + n < w) out[std::size_t(o) * w + x0 + n] = ring[done][n];
      ring[done][n] = 0.0;
    }
  }
}
}  // namespace

TEST_CASE("stage 08's ring of accumulators, replayed on the CPU, is the convolution", "[tensor]") {
  // Rows enough for several turns of the ring, a width that ends inside a window.
  for (int r = TENSOR_MIN_RADIUS; r <= MAX_FILTER_RADIUS; ++r) {
    INFO("r = " << r);
    const int d = filter_dim(r), w = 29, h = 3 * d + 2;
    const auto in = pmpp::random_floats(static_cast<std::size_t>(w) * h, 40 + r);
    const auto filter = pmpp::random_floats(static_cast<std::size_t>(d) * d, 50 + r);
    const auto table = packed_toeplitz_table(filter, r);
    REQUIRE(table.size() == static_cast<std::size_t>(packed_table_floats(r)));
    // Every 2r + 1 consecutive stored blocks are the filter's rows, rotated: block q is T_(2r - q mod (2r+1)).
    for (int q = 0; q < packed_stored_blocks(r); ++q)
      for (int k = 0; k < MMA_K * tensor_k_steps(r); ++k)
        for (int n = 0; n < MMA_N; ++n) {
          const Tf32Split want = split_tf32(toeplitz_entry(filter, r, d - 1 - q % d, k, n));
          CHECK(packed_b(table, r, 0, q, k, n) == want.big);
          CHECK(packed_b(table, r, 1, q, k, n) == want.small);
        }
    std::vector<double> got(in.size(), std::nan(""));
    for (int x0 = 0; x0 < w; x0 += MMA_N) replay_ring(in, table, w, h, r, x0, h, got);
    const auto want = convolution_2D_reference(in, filter, w, h, r);
    double worst = 0;
    for (std::size_t q = 0; q < want.size(); ++q) worst = std::max(worst, std::fabs(got[q] - want[q]));
    CHECK_FALSE(std::isnan(worst));
    CHECK(worst < float_error_bound(filter, 1.0f) / 4);
  }
}

TEST_CASE("stage 08's bands give every image row to exactly one segment, in whole turns of the ring", "[tensor]") {
  for (int r = TENSOR_MIN_RADIUS; r <= MAX_FILTER_RADIUS; ++r)
    for (const int height : {1, 7, 97, 1000, 8192, 8193, 100003})
      for (const int width : {1, 64, 65, 8192})
        for (const long long slots : {1LL, 2LL, 396LL, 528LL, 1000LL}) {
          INFO("r = " << r << ", " << width << " x " << height << ", " << slots << " slots");
          const PackedBands plan = packed_bands(width, height, r, slots);
          CHECK(plan.columns == (width + 63) / 64);
          REQUIRE(plan.bands >= 1);
          REQUIRE(plan.last_rows >= 1);
          CHECK(plan.last_rows <= plan.rows);
          CHECK((plan.rows + 2 * r) % filter_dim(r) == 0);  // the full bands end on a whole turn
          // The kernel's rows: band b, segment q starts at b x 8 x rows + q x (its band's rows).
          std::vector<int> owners(height, 0);
          for (int b = 0; b < plan.bands; ++b) {
            const int rows = b + 1 == plan.bands ? plan.last_rows : plan.rows;
            for (int q = 0; q < PACKED_SEGMENTS; ++q)
              for (int o = 0; o < rows; ++o) {
                const long long y = static_cast<long long>(b) * PACKED_SEGMENTS * plan.rows + q * rows + o;
                if (y < height) ++owners[y];
              }
          }
          CHECK(std::count(owners.begin(), owners.end(), 1) == height);
        }
}

TEST_CASE("stage 08's bands at 8192 x 8192: a short last band saves a turn where it fits the free slots", "[tensor]") {
  const long long slots = 3 * 132;  // three blocks on each of an H100's or H200's 132 SMs
  // r = 8: one wave needs 342 rows a segment, 374 row steps in whole turns of 17. Instead: 341 rows
  // (357 steps, 21 turns) in 3 bands, and a band of 1-row segments for the 8 rows left, whose 128 blocks
  // of one turn the 12 slots the full bands leave free work through in time.
  const PackedBands r8 = packed_bands(8192, 8192, 8, slots);
  CHECK(r8.rows == 341);
  CHECK(r8.bands == 4);
  CHECK(r8.last_rows == 1);
  CHECK(packed_bands_steps(r8, 8, slots) == 357);
  // r = 4: 342 rows round up to 351 steps (39 turns of 9) and stay in one wave; rounding down would
  // leave 128 short blocks of 36 steps, more than 12 free slots finish meanwhile.
  const PackedBands r4 = packed_bands(8192, 8192, 4, slots);
  CHECK(r4.rows == 343);
  CHECK(r4.bands == 3);
  CHECK(packed_bands_steps(r4, 4, slots) == 351);
  // The model: a single band of 2 one-turn blocks in 1 slot runs in two waves; short blocks the free
  // slots cannot finish in time take a wave of their own.
  CHECK(packed_bands_steps({2, 1, 1, 1}, 8, 1) == 2 * 17);
  // 4 full blocks of 18 steps in 5 slots: the free one finishes 2 short blocks of 9, the other 2 wait.
  CHECK(packed_bands_steps({4, 2, 10, 1}, 4, 5) == 18 + 9);
}

TEST_CASE("split_tf32 loses less than 2^-21 of the value", "[tensor]") {
  for (float x : pmpp::random_floats(1000, 4)) {
    const Tf32Split p = split_tf32(x);
    CHECK((bits_of(p.big) & 0x1FFFu) == 0u);
    CHECK((bits_of(p.small) & 0x1FFFu) == 0u);
    CHECK(std::fabs(static_cast<double>(p.big) + p.small - x) <= std::ldexp(std::fabs(x), -21));
  }
  CHECK(split_tf32(-2.0f).small == 0.0f);
}

TEST_CASE("toeplitz_entry places filter row i on the band 0 <= k - n <= 2r", "[tensor]") {
  for (int r = TENSOR_MIN_RADIUS; r <= MAX_FILTER_RADIUS; ++r) {
    const int d = filter_dim(r);
    std::vector<float> filter(static_cast<std::size_t>(d) * d);
    for (std::size_t q = 0; q < filter.size(); ++q) filter[q] = static_cast<float>(q + 1);  // asymmetric
    for (int i : {0, r, 2 * r})
      for (int k = 0; k < MMA_K * tensor_k_steps(r); ++k)
        for (int n = 0; n < MMA_N; ++n) {
          INFO("r=" << r << " i=" << i << " k=" << k << " n=" << n);
          const float want = k - n >= 0 && k - n <= 2 * r ? filter[std::size_t(i) * d + k - n] : 0.0f;
          CHECK(toeplitz_entry(filter, r, i, k, n) == want);
        }
  }
}

TEST_CASE("the k-steps cover the 8 + 2r columns and waste what the book says", "[tensor]") {
  CHECK(tensor_k_steps(4) == 2);
  for (int r = 5; r <= 8; ++r) CHECK(tensor_k_steps(r) == 3);
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    CHECK(MMA_K * tensor_k_steps(r) >= MMA_N + 2 * r);
    CHECK(MMA_K * (tensor_k_steps(r) - 1) < MMA_N + 2 * r);
  }
  CHECK(tensor_core_useful_share(4) == 9.0 / 16 / 3);
  CHECK(tensor_core_useful_share(8) == 17.0 / 24 / 3);
  // 8192^2 at r = 8: 17 filter rows x 3 k-steps x 3 products of 2048 operations per 128 outputs.
  CHECK(tensor_core_flops(8192, 8192, 8) == 8192.0 * 8192 / 128 * 17 * 3 * 3 * 2048);
}

TEST_CASE("the fragment table holds each Toeplitz entry split, lane by lane", "[tensor]") {
  for (int r = TENSOR_MIN_RADIUS; r <= MAX_FILTER_RADIUS; ++r) {
    const int d = filter_dim(r), steps = tensor_k_steps(r);
    const auto filter = pmpp::random_floats(static_cast<std::size_t>(d) * d, 5 + r);
    const auto table = toeplitz_fragments(filter, r);
    REQUIRE(table.size() == static_cast<std::size_t>(d) * steps * 32 * 4);
    for (int i = 0; i < d; ++i)
      for (int s = 0; s < steps; ++s)
        for (int lane = 0; lane < 32; ++lane) {
          const float* f = &table[((std::size_t(i) * steps + s) * 32 + lane) * 4];
          const int g = lane / 4, t = lane % 4;
          INFO("r=" << r << " i=" << i << " s=" << s << " lane=" << lane);
          const Tf32Split b0 = split_tf32(toeplitz_entry(filter, r, i, 8 * s + t, g));
          const Tf32Split b1 = split_tf32(toeplitz_entry(filter, r, i, 8 * s + t + 4, g));
          CHECK(f[0] == b0.big);
          CHECK(f[1] == b1.big);
          CHECK(f[2] == b0.small);
          CHECK(f[3] == b1.small);
        }
  }
}

TEST_CASE("the formulation, replayed lane by lane, is the convolution within the FP32 bound", "[tensor]") {
  // Non-square, odd sizes; blocks reaching past the right and bottom edges; every radius the stage runs.
  const int w = 29, h = 37;
  for (int r = TENSOR_MIN_RADIUS; r <= MAX_FILTER_RADIUS; ++r) {
    INFO("r=" << r);
    const int d = filter_dim(r);
    const auto in = pmpp::random_floats(static_cast<std::size_t>(w) * h, 20 + r);
    const auto filter = pmpp::random_floats(static_cast<std::size_t>(d) * d, 30 + r);
    const auto table = toeplitz_fragments(filter, r);
    std::vector<double> got(in.size(), std::nan(""));
    for (int y0 = 0; y0 < h; y0 += MMA_M)
      for (int x0 = 0; x0 < w; x0 += MMA_N) replay_block(in, table, w, h, r, y0, x0, got);
    const auto want = convolution_2D_reference(in, filter, w, h, r);
    const double bound = float_error_bound(filter, 1.0f);
    double worst = 0;
    for (std::size_t q = 0; q < want.size(); ++q) worst = std::max(worst, std::fabs(got[q] - want[q]));
    CHECK(worst <= bound);
    CHECK_FALSE(std::isnan(worst));
    // The replay adds in double, so what remains is the split's error: well inside the bound, which
    // leaves the rest of it to the tensor cores' FP32 accumulation.
    CHECK(worst < bound / 4);
  }
}

TEST_CASE("the tensor-core stages refuse radii below their range before touching the GPU", "[tensor]") {
  int checked = 0;
  for (const Stage& s : stages()) {
    if (s.tensor_flops == nullptr) continue;
    INFO(s.id);
    CHECK_THROWS_AS(s.launch({nullptr, nullptr, nullptr, 40, 30, TENSOR_MIN_RADIUS - 1, 0}), std::invalid_argument);
    CHECK(s.skip_reason != nullptr);
    CHECK_FALSE(s.skip_reason({nullptr, nullptr, nullptr, 40, 30, TENSOR_MIN_RADIUS - 1, 0}).empty());
    ++checked;
  }
  CHECK(checked == 2);  // 06 and 08
}
