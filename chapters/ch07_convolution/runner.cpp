// The shared body of the chapter-7 programs (see runner.hpp).
#include "ch07_convolution/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "pmpp/device_buffer.hpp"
#include "pmpp/random.hpp"

namespace pmpp::ch07 {

void add_options(Cli& cli, Options& o) {
  cli.option("--width", o.width, "image width in pixels", 1, 1 << 20)
      .option("--height", o.height, "image height in pixels", 1, 1 << 20)
      .option("--radius", o.radius, "filter radius r: the filter is (2r+1) x (2r+1)", 1, MAX_FILTER_RADIUS)
      .option("--tile", o.tile, "input-tile side of the tiled stages (0: the text's 32)", 0, 32)
      .option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
      .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
      .flag("--exact", o.exact, "small-integer inputs: the check demands bit-exact results")
      .flag("--analysis", o.analysis_only, "print the text's analysis only (needs no GPU)")
      .option("--json", o.json, "also write the results table as JSON to this file");
}

void validate(const Options& o) {
  // Three float images live on the host (input, reference, result) and two on the device.
  const double pixels = static_cast<double>(o.width) * o.height;
  if (pixels > 4294967296.0)
    throw UsageError("--width x --height is " + std::to_string(static_cast<long long>(pixels)) +
                     " pixels; at most 2^32 are supported");
}

struct Problem::Device {
  DeviceBuffer<float> in, filter, out;
};

Problem::Problem(const Options& o) : options_(o) {
  const std::size_t pixels = static_cast<std::size_t>(o.width) * o.height;
  const std::size_t taps = static_cast<std::size_t>(filter_dim(o.radius)) * filter_dim(o.radius);
  // Different seeds for image and filter, and a random (so asymmetric) filter: a symmetric one would
  // hide a kernel that transposes the filter or the image.
  if (o.exact) {
    in_ = random_small_ints(pixels, o.seed, -4, 4);
    filter_ = random_small_ints(taps, o.seed + 1, -3, 3);
    tolerance_ = Tolerance::exact();
  } else {
    in_ = random_floats(pixels, o.seed);
    filter_ = random_floats(taps, o.seed + 1);
    tolerance_ = {float_error_bound(filter_, 1.0f), 0};
  }
  reference_ = convolution_2D_reference(in_, filter_, o.width, o.height, o.radius);
  device_ = std::make_unique<Device>(Device{DeviceBuffer<float>(in_), DeviceBuffer<float>(filter_),
                                            DeviceBuffer<float>(pixels)});
}

Problem::~Problem() = default;

std::string Problem::describe() const {
  std::ostringstream s;
  const int d = filter_dim(options_.radius);
  s << options_.width << " x " << options_.height << " floats, " << d << "x" << d << " filter (radius "
    << options_.radius << "), " << (options_.exact ? "small integers (exact check)" : "random floats in [-1, 1)")
    << ", seed " << options_.seed << ", tolerance |error| <= " << tolerance_.abs;
  return s.str();
}

Conv2dArgs Problem::args() const {
  return {device_->in.data(), device_->filter.data(), device_->out.data(), options_.width, options_.height,
          options_.radius, options_.tile};
}

CheckResult Problem::check(const Stage& stage) {
  if (stage.upload_filter) stage.upload_filter(filter_.data(), options_.radius);
  device_->out.poison();
  stage.launch(args());
  CUDA_CHECK(cudaDeviceSynchronize());
  return compare(device_->out.to_host(), reference_, tolerance_);
}

CheckResult Problem::check_round_trip() {
  std::vector<float> out(reference_.size(), NAN);
  convolution_2D_basic_round_trip(in_.data(), filter_.data(), out.data(), options_.width, options_.height,
                                  options_.radius);
  return compare(out, reference_, tolerance_);
}

LaunchConfig Problem::time(const Stage& stage, KernelTimer& timer, Timing& timing) {
  if (stage.upload_filter) stage.upload_filter(filter_.data(), options_.radius);
  LaunchConfig config;
  const Conv2dArgs a = args();
  timing = timer.time([&] { config = stage.launch(a); });
  return config;
}

std::string describe(const DeviceInfo& d) {
  char line[256];
  std::snprintf(line, sizeof line, "%s (cc %s, %d SMs, %.0f MiB L2, %.0f KiB shared/block opt-in, peak DRAM %.0f GB/s)",
                d.name.c_str(), d.compute_capability().c_str(), d.sm_count, d.l2_bytes / 1048576.0,
                d.shared_per_block_optin / 1024.0, d.peak_dram_gbps);
  return line;
}

Table results_table(const std::vector<StageMeasurement>& runs, const Options& o, const DeviceInfo& device) {
  Table t({"stage", "check", "grid", "block", "smem B", "median ms", "GB/s", "% peak DRAM", "GFLOP/s",
           "speed-up"});
  const double bytes = compulsory_bytes(o.width, o.height);
  const double ops = flops(o.width, o.height, o.radius);
  const double first_ms = runs.empty() ? 0 : runs.front().timing.median_ms;
  for (const auto& r : runs) {
    auto dims = [](Dim3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y); };
    if (!r.passed) {  // no performance for a run that computed the wrong thing
      t.add_row({r.stage->id, "FAIL", dims(r.config.grid), dims(r.config.block), std::to_string(r.config.shared_bytes)});
      continue;
    }
    const double ms = r.timing.median_ms;
    const double gbps = gb_per_s(bytes, ms);
    t.add_row({r.stage->id, "PASS", dims(r.config.grid), dims(r.config.block), std::to_string(r.config.shared_bytes),
               Cell::num(ms, 4), Cell::num(gbps, 0), Cell::num(100.0 * gbps / device.peak_dram_gbps, 1),
               Cell::num(gflop_per_s(ops, ms), 0), Cell::num(first_ms / ms, 2)});
  }
  t.add_note("GB/s counts the compulsory traffic only (each pixel read once and written once, 8 B/pixel);");
  t.add_note("so '% peak DRAM' is the fraction of the floor this stage reaches. Speed-up is against the first row.");
  return t;
}

Table intensity_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "text model OP/B", "DRAM-traffic OP/B", "why they differ"});
  const double dram = flops(o.width, o.height, o.radius) / compulsory_bytes(o.width, o.height);
  for (const Stage* s : list)
    t.add_row({s->id, Cell::num(s->text_op_per_byte(o.radius, o.tile ? o.tile : 32), 2), Cell::num(dram, 2),
               s->model_note});
  t.add_note("text model: operations per byte loaded from global memory as section 7.2-7.5 count them;");
  t.add_note("DRAM-traffic: operations per compulsory DRAM byte, what a kernel reaches when caches catch every re-read.");
  return t;
}

Table fig_7_14_table() {
  std::vector<std::string> columns{"filter"};
  for (int tile : fig_7_14_tiles()) columns.push_back("in tile " + std::to_string(tile) + "^2");
  columns.push_back("bound");
  Table t(columns);
  for (const auto& row : fig_7_14()) {
    const int d = filter_dim(row.radius);
    std::vector<Cell> cells{std::to_string(d) + "x" + std::to_string(d)};
    for (double v : row.op_per_byte) cells.push_back(v > 0 ? Cell::num(v, 2) : Cell{"(no output)"});
    cells.push_back(Cell::num(row.bound, 2));
    t.add_row(cells);
  }
  t.add_note("OP/B of the tiled kernel (Fig 7.12) = (T-2r)^2 (2r+1)^2 * 2 / (T^2 * 4) for a T x T input tile;");
  t.add_note("a block cannot exceed 1024 threads, so T <= 32 with one thread per input pixel (the text's 9.57 and 22.78).");
  return t;
}

}  // namespace pmpp::ch07
