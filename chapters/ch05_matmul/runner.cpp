// The shared body of the chapter-5 programs (see runner.hpp).
#include "ch05_matmul/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "pmpp/device_buffer.hpp"
#include "pmpp/program.hpp"
#include "pmpp/random.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch05 {

namespace {
// The TILE_WIDTHs the stages of @p list are compiled for, each once, in order.
std::vector<int> tile_choices(const std::vector<const Stage*>& list) {
  std::vector<int> tiles;
  for (const Stage* s : list)
    for (int t : s->tiles)
      if (std::find(tiles.begin(), tiles.end(), t) == tiles.end()) tiles.push_back(t);
  return tiles;
}
// "16 or 32", "8, 16 or 32".
std::string either(const std::vector<int>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::to_string(values[i]);
  return text;
}
// "stage 02_tiled" for the stages of @p list that have a TILE_WIDTH choice.
std::string tiled_stages(const std::vector<const Stage*>& list) {
  std::string names;
  for (const Stage* s : list)
    if (!s->tiles.empty()) names += (names.empty() ? "" : ", ") + std::string(s->id);
  return (names.find(',') == std::string::npos ? "stage " : "stages ") + names;
}
}  // namespace

bool takes_tile(const std::vector<const Stage*>& list) { return !tile_choices(list).empty(); }

void add_options(Cli& cli, Options& o, const std::vector<const Stage*>& list) {
  cli.option("--m", o.m, "rows of A and C", 1, MAX_DIM)
      .option("--n", o.n, "columns of B and C", 1, MAX_DIM)
      .option("--k", o.k, "columns of A, rows of B", 1, MAX_DIM);
  if (takes_tile(list)) {
    const std::vector<int> tiles = tile_choices(list);
    cli.option("--tile", o.tile,
               "TILE_WIDTH of " + tiled_stages(list) + ": " + either(tiles) + ", or 0 for " +
                   (tiles.size() == 2 ? "both" : "each"),
               0, *std::max_element(tiles.begin(), tiles.end()));
  }
  cli.option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
      .option("--reps", o.repetitions, "timed repetitions, of which the median is reported", 1, 10000)
      .flag("--exact", o.exact, "small-integer inputs: the check demands bit-exact results")
      .flag("--analysis", o.analysis_only, "print the text's analysis only (needs no GPU)")
      .file("--json", o.json, "also write the tables as JSON to this file (a run record)");
}

std::string problem_in_words(const Options& o) {
  if (o.m == o.n && o.n == o.k) return "M = N = K = " + std::to_string(o.m) + (o.exact ? ", small integers" : "");
  return "M = " + std::to_string(o.m) + ", N = " + std::to_string(o.n) + ", K = " + std::to_string(o.k) +
         (o.exact ? ", small integers" : "");
}

void validate(const Options& o, const std::vector<const Stage*>& list) {
  const std::vector<int> tiles = tile_choices(list);
  if (o.tile != 0 && std::find(tiles.begin(), tiles.end(), o.tile) == tiles.end())
    throw UsageError("--tile must be 0, " + either(tiles) + " (the TILE_WIDTHs " + tiled_stages(list) +
                     (tiled_stages(list).find(',') == std::string::npos ? " is" : " are") + " compiled for), got " +
                     std::to_string(o.tile));
  // Each matrix lives twice on the host (input or result copy) and once on the device.
  const double limit = 4294967296.0;  // 2^32 floats, 16 GiB
  const double sizes[] = {static_cast<double>(o.m) * o.k, static_cast<double>(o.k) * o.n,
                          static_cast<double>(o.m) * o.n};
  const char* names[] = {"A (m x k)", "B (k x n)", "C (m x n)"};
  for (int i = 0; i < 3; ++i)
    if (sizes[i] > limit)
      throw UsageError(std::string(names[i]) + " would hold " + std::to_string(static_cast<long long>(sizes[i])) +
                       " floats; at most 2^32 are supported");
}

bool has_tensor_core_stage(const std::vector<const Stage*>& list) {
  return std::any_of(list.begin(), list.end(), [](const Stage* s) { return std::string(s->arithmetic) != "FP32"; });
}

std::vector<Contender> contenders(const std::vector<const Stage*>& list, int tile_option, const CublasSgemm* cublas,
                                  const CublasSgemm* cublas_tf32) {
  std::vector<Contender> out;
  for (const Stage* s : list) {
    std::function<std::string()> unavailable;
    if (s->unavailable != nullptr) unavailable = s->unavailable;
    if (s->tiles.empty()) {
      out.push_back({s->id, s, 0, s->launch, s->arithmetic, s->error_bound, unavailable});
      continue;
    }
    for (int tile : s->tiles)
      if (tile_option == 0 || tile_option == tile)
        out.push_back({std::string(s->id) + " (TILE_WIDTH " + std::to_string(tile) + ")", s, tile, s->launch,
                       s->arithmetic, s->error_bound, unavailable});
  }
  if (cublas != nullptr)
    out.push_back({"cuBLAS SGEMM (fp32, no TF32)", nullptr, 0,
                   [cublas](const MatmulArgs& a) { return cublas->launch(a); }, "FP32", &FP32_ROUNDING, {}});
  if (cublas_tf32 != nullptr)
    out.push_back({"cuBLAS SGEMM (TF32 allowed)", nullptr, 0,
                   [cublas_tf32](const MatmulArgs& a) { return cublas_tf32->launch(a); }, "TF32", &TF32_ROUNDING,
                   [] {
                     // Below 8.0 cuBLAS ignores the TF32 mode and computes in FP32: not the peer it claims to be.
                     const DeviceInfo d = query_device();
                     return d.major >= 8 ? std::string()
                                         : "TF32 needs compute capability 8.0; this GPU has " + d.compute_capability();
                   }});
  return out;
}

// ---- Problem --------------------------------------------------------------------------------------

struct Problem::Device {
  DeviceBuffer<float> A, B, C;
};

Problem::Problem(const Options& o) : options_(o) {
  const std::size_t a_size = static_cast<std::size_t>(o.m) * o.k, b_size = static_cast<std::size_t>(o.k) * o.n;
  // Different seeds for A and B: equal operands would hide a kernel that swaps them.
  if (o.exact) {
    A_ = random_small_ints(a_size, o.seed, -4, 4);
    B_ = random_small_ints(b_size, o.seed + 1, -4, 4);
  } else {
    A_ = random_floats(a_size, o.seed);
    B_ = random_floats(b_size, o.seed + 1);
  }
  sampled_ = static_cast<double>(o.m) * o.n * o.k > FULL_CHECK_MAX_MACS;
  reference_ = sampled_ ? matmul_reference(A_, B_, o.m, o.n, o.k, sample_entries(o.m, o.n, SAMPLE_RANDOM_ENTRIES, o.seed + 2))
                        : matmul_reference(A_, B_, o.m, o.n, o.k);
  device_ = std::make_unique<Device>(
      Device{DeviceBuffer<float>(A_), DeviceBuffer<float>(B_), DeviceBuffer<float>(static_cast<std::size_t>(o.m) * o.n)});
}

Problem::~Problem() = default;

std::string Problem::inputs() const {
  const Options& o = options_;
  std::ostringstream s;
  s << "C (" << o.m << " x " << o.n << ") = A (" << o.m << " x " << o.k << ") B (" << o.k << " x " << o.n << "), "
    << (o.exact ? "small integers in [-4, 4]" : "random floats in [-1, 1)") << ", seed " << o.seed;
  return s.str();
}

std::string Problem::check_method() const {
  const Options& o = options_;
  std::ostringstream s;
  if (sampled_)
    s << reference_.index.size() << " of " << static_cast<long long>(o.m) * o.n
      << " entries of C: all of rows 0, M/2, M-1 and of columns 0, N/2, N-1, plus " << SAMPLE_RANDOM_ENTRIES
      << " random entries (seed " << o.seed + 2 << "), in double on the CPU; the whole product ("
      << flops(o.m, o.n, o.k) / 2 << " multiply-adds) is too slow to check there";
  else
    s << (reference_.index.size() == 1 ? std::string("the one entry of C")
                                       : "all " + count_of(static_cast<long long>(reference_.index.size()), "entry", "entries") +
                                             " of C")
      << ", computed in double on the CPU";
  if (o.exact) {
    s << "; bit-exact (every partial sum is an integer below 2^24)";
  } else {
    const double largest = *std::max_element(reference_.magnitude.begin(), reference_.magnitude.end());
    s << "; per entry |error| <= gamma(K+1) * sum_k |a_k b_k|, gamma(n) = n 2^-24 / (1 - n 2^-24) (largest bound "
      << float_error_bound(o.k, largest) << ")";
  }
  return s.str();
}

MatmulArgs Problem::args(int tile) const {
  return {device_->A.data(), device_->B.data(), device_->C.data(), options_.m, options_.n, options_.k, tile};
}

double Problem::largest_bound(const ErrorBound& bound) const {
  return bound.of(options_.k, *std::max_element(reference_.magnitude.begin(), reference_.magnitude.end()));
}

CheckResult Problem::check(const Contender& who) {
  device_->C.poison();
  who.launch(args(who.tile));
  CUDA_CHECK(cudaDeviceSynchronize());
  return check_against(device_->C.to_host(), reference_, options_.k, options_.exact, who.error_bound->of);
}

Timing Problem::time(const Contender& who, KernelTimer& timer, LaunchConfig& config) {
  const MatmulArgs a = args(who.tile);
  return timer.time([&] { config = who.launch(a); });
}

// ---- Tables ---------------------------------------------------------------------------------------

namespace {
std::string dims(Dim3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y); }
// 1.23e-05, or 0 for an exact result: an error in 9 columns.
std::string fixed_or_sci(double value) {
  if (value == 0) return "0";
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", value);
  return text;
}
Cell tile_cell(int tile) { return tile ? Cell{std::to_string(tile)} : Cell::none(); }
std::string name_of(const Contender& who) {
  if (who.stage) return who.stage->id;
  return std::string(who.arithmetic) == "TF32" ? "cuBLAS TF32" : "cuBLAS SGEMM";
}
// The cuBLAS arithmetic a row is compared with: TF32 stages with cuBLAS TF32, the rest with FP32 SGEMM.
std::string peer_arithmetic(const Contender& who) {
  return std::string(who.arithmetic) == "TF32" ? "TF32" : "FP32";
}

// The contender's stage at each TILE_WIDTH it would run with.
std::vector<int> tiles_of(const Stage& s, const Options& o) {
  if (s.tiles.empty()) return {0};
  if (o.tile != 0) return {o.tile};
  return s.tiles;
}
}  // namespace

Table launch_table(const std::vector<Measurement>& runs) {
  Table t({"stage", "tile", "grid", "block", "smem B"});
  for (const auto& r : runs) {
    if (!r.passed) {  // not timed (failed or skipped), so no configuration was recorded
      t.add_row({name_of(*r.who), tile_cell(r.who->tile)});
    } else if (!r.config.known()) {
      t.add_row({name_of(*r.who), tile_cell(r.who->tile), "(library)"});
    } else {
      t.add_row({name_of(*r.who), tile_cell(r.who->tile), dims(r.config.grid), dims(r.config.block),
                 Cell::num(static_cast<double>(r.config.shared_bytes), 0)});
    }
  }
  t.add_note("grid: blocks, x by y (x along the columns of C); block: threads, x by y; smem B: the shared "
             "memory each block asks for, in bytes.");
  return t;
}

Table results_table(const std::vector<Measurement>& runs, const Options& o, const DeviceInfo& device) {
  Table t({"stage", "tile", "check", "median ms", "GFLOP/s", "% cuBLAS", "max error", "model GB/s", "speed-up"});
  const double ops = flops(o.m, o.n, o.k);
  auto cublas_ms = [&](const std::string& arithmetic) {
    for (const auto& r : runs)
      if (r.who->stage == nullptr && r.passed && r.who->arithmetic == arithmetic) return r.timing.median_ms;
    return 0.0;
  };
  const double first_ms = !runs.empty() && runs.front().passed ? runs.front().timing.median_ms : 0;
  bool skipped = false, tensor_cores = false;
  for (const auto& r : runs) {
    const Stage* s = r.who->stage;
    tensor_cores = tensor_cores || std::string(r.who->arithmetic) != "FP32";
    if (!r.skipped.empty()) {  // this GPU cannot run it: said on its check line
      t.add_row({name_of(*r.who), tile_cell(r.who->tile), "SKIP"});
      skipped = true;
      continue;
    }
    if (!r.passed) {  // no performance for a run that computed the wrong thing
      t.add_row({name_of(*r.who), tile_cell(r.who->tile), "FAIL"});
      continue;
    }
    const double ms = r.timing.median_ms, peer_ms = cublas_ms(peer_arithmetic(*r.who));
    t.add_row({name_of(*r.who), tile_cell(r.who->tile), "PASS", Cell::num(ms, 4), Cell::num(gflop_per_s(ops, ms), 0),
               peer_ms > 0 ? Cell::num(100.0 * peer_ms / ms, 1) : Cell::none(), Cell{fixed_or_sci(r.max_error)},
               s ? Cell::num(gb_per_s(ops / s->text_op_per_byte(r.who->tile), ms), 0) : Cell::none(),
               first_ms > 0 ? Cell::num(first_ms / ms, 2) : Cell::none()});
  }
  if (!cublas_available()) t.add_row({"cuBLAS SGEMM", Cell::none(), "missing"});
  // The limits as rows of their own: every multiply-add at the device's peak FP32 rate, and for the
  // tensor-core stages at the dense TF32 rate, once (TF32) and three times (3xTF32). A time and a rate;
  // the comparisons with measured rows would mean nothing there.
  const double fp32_ms = device.ms_at_peak_fp32(ops), tf32_ms = tensor_cores ? device.ms_at_peak_tf32(ops) : 0;
  if (fp32_ms > 0)
    t.add_row({"limit: FP32 peak", "-", "-", Cell::num(fp32_ms, 4), Cell::num(gflop_per_s(ops, fp32_ms), 0)});
  if (tf32_ms > 0) {
    t.add_row({"limit: TF32 peak", "-", "-", Cell::num(tf32_ms, 4), Cell::num(gflop_per_s(ops, tf32_ms), 0)});
    t.add_row({"limit: 3xTF32 peak", "-", "-", Cell::num(3 * tf32_ms, 4), Cell::num(gflop_per_s(ops, 3 * tf32_ms), 0)});
  }
  char note[320];
  std::snprintf(note, sizeof note,
                "model GB/s: the bytes the text's model says the stage loads from global memory (FLOPs / OP/B) per "
                "second; above this device's peak DRAM (%.0f GB/s) means L1 and L2 served the re-reads.",
                device.peak_dram_gbps);
  t.add_note(note);
  t.add_note("% cuBLAS: cuBLAS time / stage time, measured in this run: TF32 rows against cuBLAS with TF32 "
             "allowed, the others against FP32 SGEMM. Speed-up is against the first row.");
  t.add_note("max error: the largest |result - reference| over the checked entries, the reference computed in "
             "double (FP64) on the CPU.");
  if (skipped) t.add_note("SKIP: this GPU cannot run the row; its check line says why.");
  if (!cublas_available()) t.add_note("cuBLAS SGEMM: " + cublas_missing());
  if (fp32_ms > 0) {
    std::snprintf(note, sizeof note,
                  "limit: FP32 peak = 2MNK operations at %.1f TFLOP/s (%d SMs x %d FP32 lanes x 2 at the peak clock, "
                  "%.0f MHz); the compulsory DRAM traffic alone would take %.4f ms.",
                  device.peak_fp32_gflops / 1000.0, device.sm_count, fp32_lanes_per_sm(device.major, device.minor),
                  device.sm_clock_khz / 1000.0, device.ms_at_peak_dram(compulsory_bytes(o.m, o.n, o.k)));
    t.add_note(note);
  }
  if (tf32_ms > 0) {
    std::snprintf(note, sizeof note,
                  "limit: TF32 peak = 2MNK operations at this device's dense TF32 tensor-core rate, %.1f TFLOP/s "
                  "(%d SMs x %d operations per clock); 3xTF32 makes three products per product: 3 times that.",
                  device.peak_tf32_gflops / 1000.0, device.sm_count,
                  tf32_dense_flops_per_sm_per_clock(device.major, device.minor));
    t.add_note(note);
  }
  return t;
}

Table intensity_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "tile", "text model OP/B", "global loads GB (model)", "DRAM-traffic OP/B"});
  const double ops = flops(o.m, o.n, o.k);
  const double compulsory = ops / compulsory_bytes(o.m, o.n, o.k);
  for (const Stage* s : list)
    for (int tile : tiles_of(*s, o)) {
      const double opb = s->text_op_per_byte(tile);
      t.add_row({s->id, tile_cell(tile), Cell::num(opb, 2), Cell::num(ops / opb / 1e9, ops / opb < 1e10 ? 3 : 1),
                 Cell::num(compulsory, 1)});
    }
  t.add_note("text model: operations per byte loaded from global memory, counted as sections 5.1 and 5.4 count them "
             "(0.25 naive, TILE_WIDTH/4 tiled).");
  t.add_note("DRAM-traffic: operations per byte when A and B are read and C written exactly once, what a kernel "
             "reaches when the caches catch every re-read.");
  for (const Stage* s : list) t.add_note(std::string("Why ") + s->id + " differs: " + s->model_note + ".");
  return t;
}

Table coalescing_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "tile", "index (per lane)", "B/lane", "sectors", "used %", "verdict"});
  bool scalar = false;
  for (const Stage* s : list)
    for (int tile : tiles_of(*s, o))
      for (const auto& w : s->warp_accesses(tile, o.n, o.k)) {
        t.add_row({s->id, tile_cell(tile), w.index, Cell::num(w.bytes_per_lane, 0), Cell::num(w.sectors, 0),
                   Cell::num(100.0 * w.used_fraction, 1), w.verdict()});
        scalar = scalar || w.index.find("(scalar)") != std::string::npos;
      }
  t.add_note("One warp (block 0, warp 0, first k) as each kernel indexes it, at this N and K; matrices start on a "
             "256-byte boundary.");
  t.add_note("sectors: the 32-byte pieces the memory system moves for the warp; used %: the share of those bytes the "
             "lanes need.");
  t.add_note("A broadcast (lanes sharing one float, as naive A) is cheap although it is not coalesced: one sector "
             "serves many lanes.");
  if (scalar)
    t.add_note("(scalar): N or K is not a multiple of 4, so each float4 of the kernel is four 4-byte accesses "
               "(j = 0..3); the first stands for the four.");
  return t;
}

Table profile_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "tile", "flops", "compulsory read B", "compulsory write B", "text model OP/B", "DRAM-read OP/B",
           "sectors per request", "threads per warp", "bank conflicts", "shared access", "note"});
  const double ops = flops(o.m, o.n, o.k);
  const double read = sizeof(float) * (static_cast<double>(o.m) * o.k + static_cast<double>(o.k) * o.n);
  const double write = sizeof(float) * static_cast<double>(o.m) * o.n;
  for (const Stage* s : list)
    for (int tile : tiles_of(*s, o)) {
      const double sectors = sectors_per_load(s->warp_accesses(tile, o.n, o.k));
      const long long conflicts = s->bank_conflicts(o.n, o.k);
      t.add_row({s->id, tile_cell(tile), Cell::num(ops, 0), Cell::num(read, 0), Cell::num(write, 0),
                 Cell::num(s->text_op_per_byte(tile), 2), Cell::num(ops / read, 2),
                 sectors < 0 ? Cell::none() : Cell{fixed(sectors, 1)}, Cell::num(ACTIVE_THREADS_PER_WARP, 0),
                 conflicts < 0 ? Cell::none() : Cell::num(static_cast<double>(conflicts), 0), s->shared_access,
                 s->model_note});
    }
  return t;
}

// ---- The program ----------------------------------------------------------------------------------

namespace {
// @p text after @p prefix, continuation lines under the text.
void print_after(const std::string& prefix, const std::string& text) {
  std::fputs(wrap_text(text, prefix, std::string(prefix.size(), ' ')).c_str(), stdout);
}
// A name in a column of 34, then @p text.
void print_named(const std::string& name, const std::string& text) {
  std::string prefix = name;
  prefix.resize(std::max<std::size_t>(prefix.size() + 1, 35), ' ');
  print_after(prefix, text);
}
}  // namespace

int run_program(const std::string& program, const std::string& summary, const std::vector<const Stage*>& list,
                int argc, char** argv) {
  return guarded_main(program.c_str(), [&] {
    Options options;
    Cli cli(program, summary);
    add_options(cli, options, list);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options, list);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));

    std::printf("%s\n", program.c_str());
    for (const Stage* s : list) {
      std::string prefix = "  " + std::string(s->id);
      prefix.resize(std::max<std::size_t>(prefix.size() + 1, 21), ' ');
      print_after(prefix, std::string(s->title) + " (" + s->figure + ")");
    }
    std::printf("\nThe text's model of global-memory traffic (M=%d N=%d K=%d):\n", options.m, options.n, options.k);
    const Table intensity = intensity_table(list, options);
    intensity.print(std::cout);
    std::printf("\nWhich accesses coalesce (section 6.1):\n");
    const Table coalescing = coalescing_table(list, options);
    coalescing.print(std::cout);
    record.add("model", "The text's model of global-memory traffic", intensity);
    record.add("coalescing", "Which accesses coalesce: one warp of each stage", coalescing);
    record.add("profile", "What the profiler compares with its counters", profile_table(list, options));
    if (options.analysis_only) return record.finish(kExitPass);
    std::printf("\n");
    if (!gpu_or_explain(program.c_str())) return record.finish(kExitNoGpu);

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    print_after("device:  ", device.summary());
    std::fflush(stdout);  // the CPU reference can take a while at large sizes
    Problem problem(options);
    print_after("problem: ", problem.inputs());
    print_after("check:   ", problem.check_method());

    if (!options.exact)
      for (const Stage* s : list)  // the tensor-core stages' tolerances
        if (s->error_bound != &FP32_ROUNDING)
          print_after("         ", std::string(s->id) + ": " + s->error_bound->in_words + " (largest bound " +
                                       fixed_or_sci(problem.largest_bound(*s->error_bound)) + ")");
    std::printf("\n");

    std::unique_ptr<const CublasSgemm> cublas, cublas_tf32;
    if (cublas_available()) {
      cublas = std::make_unique<const CublasSgemm>();
      if (has_tensor_core_stage(list)) cublas_tf32 = std::make_unique<const CublasSgemm>(true);
    } else {
      print_named("cuBLAS SGEMM", cublas_missing());
    }
    const std::vector<Contender> list_run = contenders(list, options.tile, cublas.get(), cublas_tf32.get());
    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<Measurement> runs;
    bool all_passed = true;
    for (const Contender& who : list_run) {
      const std::string why = who.unavailable ? who.unavailable() : std::string();
      if (!why.empty()) {  // skipped, not failed
        print_named(who.name, "SKIP: " + why);
        runs.push_back({&who, {}, {}, false, 0, why});
        continue;
      }
      const CheckResult check = problem.check(who);
      print_named(who.name, check.summary());
      Measurement run{&who, {}, {}, check.ok(), check.worst_error, {}};
      if (check.ok()) run.timing = problem.time(who, timer, run.config);
      all_passed = all_passed && check.ok();
      runs.push_back(run);
    }
    std::printf("\n");
    const Table launches = launch_table(runs);
    launches.print(std::cout);
    std::printf("\n");
    const Table results = results_table(runs, options, device);
    results.print(std::cout);
    const std::string subject = list.size() > 1 ? "Stages side by side" : std::string("Stage ") + list.front()->id;
    record.add("launch", subject + ": launch configurations", launches);
    record.add("results", subject + (list.size() > 1 ? " with cuBLAS" : " next to cuBLAS"), results);
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}

}  // namespace pmpp::ch05
