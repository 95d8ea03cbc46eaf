// The shared body of the chapter-7 programs (see runner.hpp).
#include "ch07_convolution/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>

#include "pmpp/device_buffer.hpp"
#include "pmpp/random.hpp"

namespace pmpp::ch07 {

void add_options(Cli& cli, Options& o) {
  cli.option("--width", o.width, "image width in pixels", 1, 1 << 20)
      .option("--height", o.height, "image height in pixels", 1, 1 << 20)
      .option("--radius", o.radius, "filter radius r: the filter is (2r+1) x (2r+1)", 1, MAX_FILTER_RADIUS)
      .option("--tile", o.tile, "input tile of stage 03 (Fig 7.12): 8, 16 or 32, larger than 2r; 0: the text's 32", 0,
              1024)
      .option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
      .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
      .flag("--exact", o.exact, "small-integer inputs: the check demands bit-exact results")
      .flag("--analysis", o.analysis_only, "print the text's analysis only (needs no GPU)")
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
}

void validate(const Options& o) {
  // Three float images live on the host (input, reference, result) and two on the device.
  const double pixels = static_cast<double>(o.width) * o.height;
  if (pixels > 4294967296.0)
    throw UsageError("--width x --height is " + std::to_string(static_cast<long long>(pixels)) +
                     " pixels; at most 2^32 are supported");
  // Every program takes --tile (the side-by-side one runs stage 03), so every program checks it.
  if (const std::string why = tiled_tile_error(o.tile, o.radius, o.height); !why.empty())
    throw UsageError("--tile " + std::to_string(o.tile) + ": " + why);
}

std::string problem_in_words(const Options& o) {
  const int d = filter_dim(o.radius);
  return std::to_string(o.width) + " x " + std::to_string(o.height) + " image, " + std::to_string(d) + " x " +
         std::to_string(d) + " filter" + (o.exact ? ", small integers (exact check)" : "");
}

// ---- Problem ------------------------------------------------------------------------------------

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
  return check([&](const Conv2dArgs& a) { stage.launch(a); });
}

CheckResult Problem::check(const Launch& launch) {
  device_->out.poison();
  launch(args());
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
  timing = time([&](const Conv2dArgs& a) { config = stage.launch(a); }, timer);
  return config;
}

Timing Problem::time(const Launch& launch, KernelTimer& timer) {
  const Conv2dArgs a = args();
  return timer.time([&] { launch(a); });
}

Measurement measure(Problem& problem, const Stage& stage, KernelTimer& timer) {
  Measurement m;
  m.name = stage.id;
  m.ran = true;
  const CheckResult check = problem.check(stage);
  m.passed = check.ok();
  m.status = m.passed ? "PASS" : "FAIL";
  std::printf("%-22s %s\n", stage.id, check.summary().c_str());
  if (m.passed) m.config = problem.time(stage, timer, m.timing);  // no timing for a wrong result
  return m;
}

// ---- Device limits ------------------------------------------------------------------------------

namespace {

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
std::string format(const char* fmt, ...) {
  char line[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(line, sizeof line, fmt, args);
  va_end(args);
  return line;
}

}  // namespace

Floors floors(const Options& o, const DeviceInfo& d) {
  Floors f;
  const double pixels = static_cast<double>(o.width) * o.height;
  f.dram_ms = d.ms_at_peak_dram(compulsory_bytes(o.width, o.height));
  f.fp32_tflops = d.peak_fp32_gflops / 1000.0;
  f.fma_ms = d.ms_at_peak_fp32(2.0 * pixels * filter_dim(o.radius) * filter_dim(o.radius));
  return f;
}

// ---- Tables -------------------------------------------------------------------------------------

Table results_table(const std::vector<Measurement>& runs, const Options& o, const DeviceInfo& device,
                    const std::string& library) {
  const Measurement* baseline = nullptr;
  for (const auto& r : runs)
    if (!library.empty() && r.name == library && r.passed) baseline = &r;
  const std::string first = runs.empty() ? "" : runs.front().name;
  std::vector<std::string> columns{"stage", "check", "grid", "block", "smem B", "median ms", "GB/s", "% of floor",
                                   "GFLOP/s", "vs " + first};
  if (baseline) columns.push_back("vs " + library);
  Table t(columns);

  const double bytes = compulsory_bytes(o.width, o.height);
  const double ops = flops(o.width, o.height, o.radius);
  const double first_ms = runs.empty() || !runs.front().passed ? 0 : runs.front().timing.median_ms;
  const Floors f = floors(o, device);
  auto dims = [](Dim3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y); };
  for (const auto& r : runs) {
    std::vector<Cell> cells{r.name, r.status};
    if (r.config)
      cells.insert(cells.end(), {dims(r.config->grid), dims(r.config->block), std::to_string(r.config->shared_bytes)});
    else
      cells.insert(cells.end(), {Cell::none(), Cell::none(), Cell::none()});
    if (r.passed) {  // no performance for a run that computed the wrong thing, or did not run
      const double ms = r.timing.median_ms;
      const double gbps = gb_per_s(bytes, ms);
      cells.insert(cells.end(), {Cell::num(ms, 4), Cell::num(gbps, 0), Cell::num(100.0 * f.dram_ms / ms, 1),
                                 Cell::num(gflop_per_s(ops, ms), 0),
                                 first_ms > 0 ? Cell::num(first_ms / ms, 2) : Cell::none()});
      if (baseline) cells.push_back(Cell::num(baseline->timing.median_ms / ms, 2));
    }
    t.add_row(cells);
  }
  // The limits as rows of their own, timed like nothing else: what no kernel can beat on this device.
  auto limit_row = [&](const char* name, double ms) {
    std::vector<Cell> cells{name, "-", "-", "-", "-", Cell::num(ms, 4), Cell::num(gb_per_s(bytes, ms), 0),
                            Cell::num(100.0 * f.dram_ms / ms, 1), Cell::num(gflop_per_s(ops, ms), 0),
                            first_ms > 0 ? Cell::num(first_ms / ms, 2) : Cell::none()};
    if (baseline) cells.push_back(Cell::num(baseline->timing.median_ms / ms, 2));
    t.add_row(cells);
  };
  if (f.dram_ms > 0) limit_row("limit: DRAM floor", f.dram_ms);
  if (f.fma_ms > 0) limit_row("limit: FP32 floor", f.fma_ms);
  t.add_note(format("limit: DRAM floor = the compulsory 8 B/pixel (each pixel read once, written once) at peak DRAM "
                    "%.0f GB/s = %.4f ms.",
                    device.peak_dram_gbps, f.dram_ms));
  t.add_note("'% of floor' = DRAM floor / time, the same as compulsory GB/s over peak DRAM GB/s.");
  if (f.fma_ms > 0)
    t.add_note(format("limit: FP32 floor = %d FMAs/pixel at %.1f TFLOP/s (%d SMs at the peak clock) = %.4f ms.",
                      filter_dim(o.radius) * filter_dim(o.radius), f.fp32_tflops, device.sm_count, f.fma_ms));
  t.add_note("'vs X' = X's time / this row's time: above 1 is faster than X.");
  return t;
}

std::vector<std::string> explain_tiled_vs_basic(const std::vector<Measurement>& runs, const Options& o,
                                                const DeviceInfo& device) {
  auto passed = [&](const char* name) -> const Measurement* {
    for (const auto& r : runs)
      if (r.name == name && r.passed) return &r;
    return nullptr;
  };
  std::vector<std::string> lines{"Why the text's tiled stages do or do not beat 01_basic on this device (from the times above):"};
  const Measurement* basic = passed("01_basic");
  if (basic == nullptr) {
    lines.push_back("- 01_basic did not run or did not pass, so there is nothing to compare against.");
    return lines;
  }
  const double bytes = compulsory_bytes(o.width, o.height);
  if (bytes <= static_cast<double>(device.l2_bytes)) {
    lines.push_back(format("- the whole problem (%.1f MiB in and out) fits in the %.0f MiB L2: these times measure launch "
                           "overhead and caches, not DRAM. Run at the default 8192 x 8192 for a comparison that means "
                           "something.",
                           bytes / 1048576.0, device.l2_bytes / 1048576.0));
    return lines;
  }
  const Floors f = floors(o, device);
  const int r = o.radius, taps = filter_dim(r) * filter_dim(r);
  const double t01 = basic->timing.median_ms;
  // Section 7.2's model: 8 bytes from global memory per tap. Were that DRAM traffic, 01_basic would take:
  const double model_ms = static_cast<double>(o.width) * o.height * taps * 8.0 / (device.peak_dram_gbps * 1e6);
  if (t01 < model_ms)
    lines.push_back(format("- 01_basic: at the text's 0.25 OP/B it would move %.1f GB through DRAM, %.3f ms at peak; it "
                           "took %.3f ms, so L1 and the %.0f MiB L2 served most of the %d reads of each pixel. DRAM "
                           "sees close to the compulsory 8 B/pixel in every stage (floor %.4f ms).",
                           model_ms * device.peak_dram_gbps * 1e-3, model_ms, t01, device.l2_bytes / 1048576.0, taps,
                           f.dram_ms));
  else
    lines.push_back(format("- 01_basic: %.3f ms, as slow as the text's 0.25 OP/B predicts (%.3f ms at peak DRAM): "
                           "the caches did not catch its re-reads here.",
                           t01, model_ms));

  auto verdict = [](double speedup) {
    return speedup > 1.05 ? "faster than" : speedup < 0.95 ? "slower than" : "about as fast as";
  };
  if (const Measurement* m = passed("02_constant_memory")) {
    const double s = t01 / m->timing.median_ms;
    lines.push_back(format("- 02_constant_memory: %.2fx, %s 01_basic. Every lane of a warp reads the same filter value, "
                           "an L1 broadcast in 01 already: the constant cache saves a load instruction per tap, not "
                           "DRAM bytes, and the compile-time FILTER_RADIUS lets the compiler unroll the tap loops.",
                           s, verdict(s)));
  }
  if (const Measurement* m = passed("03_tiled_halo")) {
    const double s = t01 / m->timing.median_ms;
    const int tile = o.tile == 0 ? DEFAULT_IN_TILE_DIM : o.tile, out = tile - 2 * r;
    const double idle = 100.0 * (tile * tile - out * out) / (tile * tile);
    lines.push_back(format("- 03_tiled_halo: %.2fx, %s 01_basic. With a %dx%d input tile %.0f%% of its threads only "
                           "load halo cells, each block waits at a barrier, and shared memory replaces loads that "
                           "were L1 hits already: %s.",
                           s, verdict(s), tile, tile, idle,
                           s > 1.05 ? "its taps read shared memory, which answers faster than L1 and needs no "
                                      "bounds test per tap, and that outweighs those costs"
                                    : "those costs eat what the shared-memory reuse saves"));
  }
  if (const Measurement* m = passed("04_cached_halo")) {
    const double s = t01 / m->timing.median_ms;
    // Taps of a 32x32 tile that land outside it: along one axis, r(r+1) of the 32(2r+1) tap positions.
    const double inside = 1.0 - static_cast<double>(r) * (r + 1) / (32.0 * filter_dim(r));
    lines.push_back(format("- 04_cached_halo: %.2fx, %s 01_basic. %.1f%% of its taps fall in the halo and branch to "
                           "global memory (L1/L2 hits), and every tap pays the inside-the-tile test.",
                           s, verdict(s), 100.0 * (1.0 - inside * inside)));
  }
  if (const Measurement* m = passed("05_register_tiled")) {
    const double t = m->timing.median_ms, s = t01 / t;
    const bool fma_bound = f.fma_ms > f.dram_ms;
    const RegisterTiling tiling = register_tiling(r);
    // A pixel read into registers meets every output column of the thread (4) in every output row that
    // one of the filter rows added together reaches.
    const int uses = 4 * std::min(tiling.coarse_y, tiling.filter_rows);
    lines.push_back(format("- 05_register_tiled: %.2fx 01_basic, %.0f%% of the DRAM floor. Its other floor, %d FMAs "
                           "per pixel at the FP32 peak, is %.4f ms: %s. A pixel read from shared memory feeds up to "
                           "%d FMAs in registers, so instructions per output, not bytes, is what it cut.",
                           s, 100.0 * f.dram_ms / t, taps, f.fma_ms,
                           fma_bound ? "above the DRAM floor, so this filter is bound by arithmetic"
                                     : "below the DRAM floor, so this filter is bound by DRAM",
                           uses));
  }
  lines.push_back("The text's OP/B counts global-memory requests; on a GPU whose caches turn the re-reads into L1/L2 "
                  "hits, DRAM traffic is near 8 B/pixel for every stage and the instructions per output decide.");
  return lines;
}

Table intensity_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "text model OP/B", "DRAM-read OP/B", "why they differ"});
  // Loads only, as the text counts: each pixel read from DRAM once, 4 bytes.
  const double dram = flops(o.width, o.height, o.radius) / (0.5 * compulsory_bytes(o.width, o.height));
  for (const Stage* s : list)
    t.add_row({s->id, Cell::num(s->text_op_per_byte(o.radius, o.tile), 2), Cell::num(dram, 2), s->model_note});
  t.add_note("text model: operations per byte loaded from global memory as sections 7.2-7.5 count them.");
  t.add_note("DRAM-read: operations per byte when DRAM delivers each pixel once (caches catch every re-read), counting "
             "loads only, like the model. It equals the text's bound for an infinitely large tile, (2r+1)^2 / 2.");
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
  t.add_note("OP/B of the tiled kernel (Fig 7.12) = (T-2r)^2 (2r+1)^2 * 2 / (T^2 * 4) for a T x T input tile.");
  t.add_note("A block cannot exceed 1024 threads, so T <= 32 with one thread per input pixel (the text's 9.57 and "
             "22.78). Rounded half up, as the text rounds: 3.125 prints as 3.13.");
  return t;
}

// ---- The radius sweep ------------------------------------------------------------------------------

std::vector<SweepRow> sweep_radii(const Options& o, const DeviceInfo& device, KernelTimer& timer) {
  std::vector<SweepRow> rows;
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    Options at_r = o;
    at_r.radius = r;
    SweepRow row{r, floors(at_r, device), {}};
    Problem problem(at_r);  // its own image, filter and reference for each radius
    for (const Stage& stage : stages())
      if (std::string(stage.figure) == "beyond the text" && r <= stage.max_radius)
        row.runs.push_back(measure(problem, stage, timer));
    rows.push_back(std::move(row));
  }
  return rows;
}

Table sweep_table(const std::vector<SweepRow>& rows, const DeviceInfo& device) {
  std::vector<std::string> columns{"radius", "filter", "DRAM floor ms", "FP32 floor ms", "bound by"};
  if (!rows.empty())
    for (const Measurement& m : rows.front().runs) columns.push_back(m.name + " ms");
  columns.insert(columns.end(), {"best", "% of floor"});
  Table t(columns);
  for (const SweepRow& row : rows) {
    const int d = filter_dim(row.radius);
    const double floor_ms = std::max(row.floors.dram_ms, row.floors.fma_ms);
    std::vector<Cell> cells{std::to_string(row.radius), std::to_string(d) + "x" + std::to_string(d),
                            Cell::num(row.floors.dram_ms, 4), Cell::num(row.floors.fma_ms, 4),
                            row.floors.fma_ms > row.floors.dram_ms ? "FP32" : "DRAM"};
    const Measurement* best = nullptr;
    for (const Measurement& m : row.runs) {
      cells.push_back(m.passed ? Cell::num(m.timing.median_ms, 4) : Cell{m.status});
      if (m.passed && (best == nullptr || m.timing.median_ms < best->timing.median_ms)) best = &m;
    }
    if (best != nullptr)
      cells.insert(cells.end(), {best->name, Cell::num(100.0 * floor_ms / best->timing.median_ms, 1)});
    else
      cells.insert(cells.end(), {Cell::none(), Cell::none()});
    t.add_row(cells);
  }
  t.add_note(format("DRAM floor: 8 B/pixel at %.0f GB/s; FP32 floor: (2r+1)^2 FMAs/pixel at %.1f TFLOP/s (%d SMs at the "
                    "peak clock).",
                    device.peak_dram_gbps, rows.empty() ? 0.0 : rows.front().floors.fp32_tflops, device.sm_count));
  t.add_note("'% of floor' = the higher floor / the best stage's time: 100 would be the hardware's limit.");
  return t;
}

}  // namespace pmpp::ch07
