// Stage 08's division of the image among its blocks (see convolution.hpp), on the CPU, where tests can
// check it without a GPU.
//
// A segment of L output rows costs L + 2r row steps (2r rows only fill the ring), in whole turns of the
// ring of 2r + 1: the kernel unrolls a turn, so that no branch separates the products of its rows. Cut
// for exactly one wave, the segments' rows rarely make whole turns, and rounding them up costs as much
// as a turn (at 8192 x 8192, r = 8, on 132 SMs: 374 row steps for 342 rows). Rounding down instead leaves
// a few rows over, for one more band of short blocks: dispatched last, they run in the slots the full
// bands leave free, and cost nothing where those slots finish them in time (there: 357 row steps).
#include <algorithm>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch07 {

int packed_row_steps(int rows, int radius) {
  const int ring = filter_dim(radius);
  return ceil_div(rows + 2 * radius, ring) * ring;
}

long long packed_bands_steps(const PackedBands& plan, int radius, long long slots) {
  const long long tail = plan.columns, tail_steps = packed_row_steps(plan.last_rows, radius);
  const long long full = static_cast<long long>(plan.bands - 1) * plan.columns;
  if (full == 0) return ceil_div(tail, slots) * tail_steps;
  const long long full_steps = packed_row_steps(plan.rows, radius);
  const long long waves = ceil_div(full, slots);
  // The slots the last wave of full blocks leaves free each finish this many short blocks meanwhile.
  const long long in_free_slots = (waves * slots - full) * (full_steps / tail_steps);
  const long long after = std::max(0LL, tail - in_free_slots);
  return waves * full_steps + ceil_div(after, slots) * tail_steps;
}

namespace {
PackedBands bands_of(int width, int height, int rows) {
  PackedBands plan;
  plan.columns = ceil_div(width, PACKED_WINDOWS * MMA_N);
  plan.rows = rows;
  plan.bands = ceil_div(height, PACKED_SEGMENTS * rows);
  const int left = height - (plan.bands - 1) * PACKED_SEGMENTS * rows;  // image rows the last band covers
  plan.last_rows = ceil_div(left, PACKED_SEGMENTS);
  return plan;
}
}  // namespace

PackedBands packed_bands(int width, int height, int radius, long long slots) {
  const long long columns = ceil_div(width, PACKED_WINDOWS * MMA_N);
  const long long wave_bands = std::clamp<long long>(slots / columns, 1, ceil_div(height, PACKED_SEGMENTS));
  const int wave_rows = static_cast<int>(ceil_div<long long>(height, PACKED_SEGMENTS * wave_bands));
  const int ring = filter_dim(radius);
  const int turns = packed_row_steps(wave_rows, radius) / ring;
  PackedBands best = bands_of(width, height, turns * ring - 2 * radius);
  const int fewer_rows = (turns - 1) * ring - 2 * radius;
  if (fewer_rows >= 1) {
    const PackedBands fewer = bands_of(width, height, fewer_rows);
    if (packed_bands_steps(fewer, radius, slots) < packed_bands_steps(best, radius, slots)) best = fewer;
  }
  return best;
}

}  // namespace pmpp::ch07
