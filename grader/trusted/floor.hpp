/// @file floor.hpp
/// @brief An exercise's floor: the least time any kernel can take for the work it must do, on this
/// GPU, and the physics check that every timing of the grader passes through.
///
/// The floor is the larger of two: the compulsory DRAM traffic at the GPU's peak bandwidth, and the
/// floating-point work at its peak FP32 rate (pmpp::DeviceInfo). Before every timed run L2 is evicted,
/// so every compulsory byte read must come from DRAM; what a kernel writes may stay in L2 when it
/// ends, so only the written bytes that L2 cannot hold count. A time below the floor, by more than
/// kPhysicsTolerance, cannot come from an honest kernel: the work was done before the clock started
/// (during the untimed preparation: by a kernel left running on the GPU, since the worker itself is held
/// still between calls) or the call returned before it ended.
/// Plain C++, no GPU: checked by a host test.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>

namespace pmpp_grader {

/// What a launch must do at least: bytes it reads and writes, and FP32 operations.
struct Work {
  double read_bytes = 0;
  double write_bytes = 0;
  double flops = 0;
};

/// How far below the floor a timing may lie and still pass: the peaks are the GPU's theoretical
/// ones, which no kernel reaches, and the trusted clock reads nanoseconds, so 5% is room for the
/// reported clocks' rounding, never for a kernel that skipped work.
inline constexpr double kPhysicsTolerance = 0.05;

struct Floor {
  const char* kind = "DRAM";  ///< "DRAM" or "FP32": which of the two limits is higher
  double ms = 0;              ///< 0: the GPU's peaks are not known, and there is no floor
  double bytes = 0;           ///< the DRAM traffic the floor counts
  double flops = 0;
};

/// The floor of @p work on a GPU of @p peak_dram_gbps and @p peak_fp32_gflops (0: not known) whose
/// L2 holds @p l2_bytes.
inline Floor floor_of(const Work& work, double peak_dram_gbps, double peak_fp32_gflops, double l2_bytes) {
  Floor f;
  f.bytes = work.read_bytes + std::max(0.0, work.write_bytes - l2_bytes);
  f.flops = work.flops;
  const double dram_ms = peak_dram_gbps > 0 ? f.bytes / (peak_dram_gbps * 1e6) : 0;
  const double fp32_ms = peak_fp32_gflops > 0 ? f.flops / (peak_fp32_gflops * 1e6) : 0;
  f.kind = fp32_ms > dram_ms ? "FP32" : "DRAM";
  f.ms = std::max(dram_ms, fp32_ms);
  return f;
}

/// The physics check of one timing.
struct Physics {
  bool flagged = false;
  std::string line;  ///< one line, for the report
};

/// Whether @p ms, the work's own time (a median of timed calls less the call's fixed cost, see
/// timing.hpp), is possible for a kernel whose floor is @p floor.
inline Physics check_physics(double ms, const Floor& floor) {
  Physics p;
  char text[320];
  if (floor.ms <= 0) {
    p.line = "no physics check: this GPU's peak DRAM bandwidth and FP32 rate are not known";
    return p;
  }
  p.flagged = ms < floor.ms * (1 - kPhysicsTolerance);
  if (p.flagged)
    std::snprintf(text, sizeof text,
                  "impossible: the work's own %.4f ms is %.0f%% of the %s floor (%.4f ms); no kernel can do this "
                  "work that fast, so it was done outside the timed call or the call returned before it ended",
                  ms, 100 * ms / floor.ms, floor.kind, floor.ms);
  else
    std::snprintf(text, sizeof text, "possible: the work's own %.4f ms is above the %s floor of %.4f ms (%.0f%% of peak)",
                  ms, floor.kind, floor.ms, ms > 0 ? 100 * floor.ms / ms : 0.0);
  p.line = text;
  return p;
}

}  // namespace pmpp_grader
