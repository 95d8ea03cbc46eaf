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

namespace pmpp::ch05 {

void add_options(Cli& cli, Options& o) {
  cli.option("--m", o.m, "rows of A and C", 1, MAX_DIM)
      .option("--n", o.n, "columns of B and C", 1, MAX_DIM)
      .option("--k", o.k, "columns of A, rows of B", 1, MAX_DIM)
      .option("--tile", o.tile, "TILE_WIDTH of stage 02_tiled, 16 or 32 (0: both)", 0, 32)
      .option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
      .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
      .flag("--exact", o.exact, "small-integer inputs: the check demands bit-exact results")
      .flag("--analysis", o.analysis_only, "print the text's analysis only (needs no GPU)")
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
}

std::string problem_in_words(const Options& o) {
  if (o.m == o.n && o.n == o.k) return "M = N = K = " + std::to_string(o.m) + (o.exact ? ", small integers" : "");
  return "M = " + std::to_string(o.m) + ", N = " + std::to_string(o.n) + ", K = " + std::to_string(o.k) +
         (o.exact ? ", small integers" : "");
}

void validate(const Options& o) {
  if (o.tile != 0 && o.tile != 16 && o.tile != 32)
    throw UsageError("--tile must be 0, 16 or 32 (the TILE_WIDTHs stage 02 is compiled for), got " +
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

std::vector<Contender> contenders(const std::vector<const Stage*>& list, int tile_option, const CublasSgemm* cublas) {
  std::vector<Contender> out;
  for (const Stage* s : list) {
    if (s->tiles.empty()) {
      out.push_back({s->id, s, 0, s->launch});
      continue;
    }
    for (int tile : s->tiles)
      if (tile_option == 0 || tile_option == tile)
        out.push_back({std::string(s->id) + " (TILE_WIDTH " + std::to_string(tile) + ")", s, tile, s->launch});
  }
  if (cublas != nullptr)
    out.push_back({"cuBLAS SGEMM (fp32, no TF32)", nullptr, 0,
                   [cublas](const MatmulArgs& a) { return cublas->launch(a); }});
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

std::string Problem::describe() const {
  const Options& o = options_;
  std::ostringstream s;
  s << "C (" << o.m << " x " << o.n << ") = A (" << o.m << " x " << o.k << ") B (" << o.k << " x " << o.n << "), "
    << (o.exact ? "small integers in [-4, 4]" : "random floats in [-1, 1)") << ", seed " << o.seed << "\ncheck:   ";
  if (sampled_)
    s << reference_.index.size() << " of " << static_cast<long long>(o.m) * o.n
      << " entries of C: all of rows 0, M/2, M-1 and of columns 0, N/2, N-1, plus " << SAMPLE_RANDOM_ENTRIES
      << " random entries (seed " << o.seed + 2 << "), in double on the CPU; the whole product ("
      << flops(o.m, o.n, o.k) / 2 << " multiply-adds) is too slow to check there";
  else
    s << "all " << reference_.index.size() << " entries of C, computed in double on the CPU";
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

CheckResult Problem::check(const Contender& who) {
  device_->C.poison();
  who.launch(args(who.tile));
  CUDA_CHECK(cudaDeviceSynchronize());
  return check_against(device_->C.to_host(), reference_, options_.k, options_.exact);
}

Timing Problem::time(const Contender& who, KernelTimer& timer, LaunchConfig& config) {
  const MatmulArgs a = args(who.tile);
  return timer.time([&] { config = who.launch(a); });
}

// ---- Tables ---------------------------------------------------------------------------------------

namespace {
std::string dims(Dim3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y); }
Cell tile_cell(int tile) { return tile ? Cell{std::to_string(tile)} : Cell::none(); }

// The contender's stage at each TILE_WIDTH it would run with.
std::vector<int> tiles_of(const Stage& s, const Options& o) {
  if (s.tiles.empty()) return {0};
  if (o.tile != 0) return {o.tile};
  return s.tiles;
}
}  // namespace

Table results_table(const std::vector<Measurement>& runs, const Options& o, const DeviceInfo& device) {
  Table t({"stage", "tile", "check", "grid", "block", "smem B", "median ms", "GFLOP/s", "% cuBLAS",
           "loads GB/s (model)", "DRAM-bound GFLOP/s (model)", "speed-up"});
  const double ops = flops(o.m, o.n, o.k);
  double cublas_ms = 0;
  for (const auto& r : runs)
    if (r.who->stage == nullptr && r.passed) cublas_ms = r.timing.median_ms;
  const double first_ms = !runs.empty() && runs.front().passed ? runs.front().timing.median_ms : 0;
  for (const auto& r : runs) {
    const Stage* s = r.who->stage;
    const std::string name = s ? s->id : "cuBLAS SGEMM";
    const bool known = r.config.known();
    if (!r.passed) {  // no performance for a run that computed the wrong thing
      t.add_row({name, tile_cell(r.who->tile), "FAIL"});
      continue;
    }
    const double ms = r.timing.median_ms;
    std::vector<Cell> row{name,
                          tile_cell(r.who->tile),
                          "PASS",
                          known ? Cell{dims(r.config.grid)} : Cell{"(library)"},
                          known ? Cell{dims(r.config.block)} : Cell::none(),
                          known ? Cell{std::to_string(r.config.shared_bytes)} : Cell::none(),
                          Cell::num(ms, 4),
                          Cell::num(gflop_per_s(ops, ms), 0),
                          cublas_ms > 0 ? Cell::num(100.0 * cublas_ms / ms, 1) : Cell::none()};
    if (s) {
      const double opb = s->text_op_per_byte(r.who->tile);
      row.push_back(Cell::num(gb_per_s(ops / opb, ms), 0));
      row.push_back(Cell::num(memory_bound_gflops(device.peak_dram_gbps, opb), 0));
    } else {
      row.push_back(Cell::none());
      row.push_back(Cell::none());
    }
    row.push_back(first_ms > 0 ? Cell::num(first_ms / ms, 2) : Cell::none());
    t.add_row(row);
  }
  if (!cublas_available()) t.add_row({"cuBLAS SGEMM", Cell::none(), cublas_missing()});
  // The limit as a row of its own: every multiply-add at the device's peak FP32 rate.
  const double fp32_ms = device.ms_at_peak_fp32(ops);
  if (fp32_ms > 0)
    t.add_row({"limit: FP32 peak", "-", "-", "-", "-", "-", Cell::num(fp32_ms, 4), Cell::num(gflop_per_s(ops, fp32_ms), 0),
               cublas_ms > 0 ? Cell::num(100.0 * cublas_ms / fp32_ms, 1) : Cell::none(), "-", "-",
               first_ms > 0 ? Cell::num(first_ms / fp32_ms, 2) : Cell::none()});
  char note[300];
  std::snprintf(note, sizeof note,
                "loads GB/s: the bytes the text's model says the stage loads from global memory (FLOPs / OP/B) per "
                "second; above this device's peak DRAM (%.0f GB/s) means L1 and L2 served the re-reads.",
                device.peak_dram_gbps);
  t.add_note(note);
  t.add_note("DRAM-bound GFLOP/s: the text's ceiling, peak DRAM x OP/B, for a kernel whose every load goes to DRAM.");
  t.add_note("% cuBLAS: cuBLAS time / stage time, measured in this run. Speed-up is against the first row.");
  if (fp32_ms > 0) {
    std::snprintf(note, sizeof note,
                  "limit: FP32 peak = 2MNK operations at %.1f TFLOP/s (%d SMs x %d FP32 lanes x 2 at the peak clock, "
                  "%.0f MHz); the compulsory DRAM traffic alone would take %.4f ms.",
                  device.peak_fp32_gflops / 1000.0, device.sm_count, fp32_lanes_per_sm(device.major, device.minor),
                  device.sm_clock_khz / 1000.0, device.ms_at_peak_dram(compulsory_bytes(o.m, o.n, o.k)));
    t.add_note(note);
  }
  return t;
}

Table intensity_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "tile", "text model OP/B", "global loads GB (model)", "DRAM-traffic OP/B", "why they differ"});
  const double ops = flops(o.m, o.n, o.k);
  const double compulsory = ops / compulsory_bytes(o.m, o.n, o.k);
  for (const Stage* s : list)
    for (int tile : tiles_of(*s, o)) {
      const double opb = s->text_op_per_byte(tile);
      t.add_row({s->id, tile_cell(tile), Cell::num(opb, 2), Cell::num(ops / opb / 1e9, ops / opb < 1e10 ? 3 : 1), Cell::num(compulsory, 1),
                 s->model_note});
    }
  t.add_note("text model: operations per byte loaded from global memory, counted as sections 5.1 and 5.4 count them "
             "(0.25 naive, TILE_WIDTH/4 tiled).");
  t.add_note("DRAM-traffic: operations per byte when A and B are read and C written exactly once, what a kernel "
             "reaches when the caches catch every re-read.");
  return t;
}

Table coalescing_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "tile", "access", "index (per lane)", "B/lane", "floats", "32-B sectors", "used %",
           "verdict"});
  for (const Stage* s : list)
    for (int tile : tiles_of(*s, o)) {
      const auto accesses = s->warp_accesses(tile, o.n, o.k);
      double load_sectors = 0;
      int loads = 0;
      for (const auto& w : accesses) {
        t.add_row({s->id, tile_cell(tile), w.access, w.index, std::to_string(w.bytes_per_lane),
                   std::to_string(w.distinct_elements), std::to_string(w.sectors),
                   Cell::num(100.0 * w.used_fraction, 1), w.verdict()});
        if (w.access.find("load") != std::string::npos) load_sectors += w.sectors, ++loads;
      }
      t.add_row({s->id, tile_cell(tile), "mean per load", "(compare: ncu sectors / requests)", "", "", Cell::num(load_sectors / loads, 1)});
    }
  t.add_note("One warp (block 0, warp 0, first k) as each kernel indexes it, at this N and K; matrices start on a "
             "256-byte boundary.");
  t.add_note("sectors: the 32-byte pieces the memory system moves for the warp; used %: the share of those bytes the "
             "lanes need.");
  t.add_note("A broadcast (lanes sharing one float, as naive A) is cheap although it is not coalesced: one sector "
             "serves many lanes.");
  return t;
}

// ---- The program ----------------------------------------------------------------------------------

int run_program(const std::string& program, const std::string& summary, const std::vector<const Stage*>& list,
                int argc, char** argv) {
  return guarded_main(program.c_str(), [&] {
    Options options;
    Cli cli(program, summary);
    add_options(cli, options);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));

    std::printf("%s\n", program.c_str());
    for (const Stage* s : list) std::printf("  %-18s %s (%s)\n", s->id, s->title, s->figure);
    std::printf("\nThe text's model of global-memory traffic (M=%d N=%d K=%d):\n", options.m, options.n, options.k);
    const Table intensity = intensity_table(list, options);
    intensity.print(std::cout);
    std::printf("\nWhich accesses coalesce (section 6.1):\n");
    const Table coalescing = coalescing_table(list, options);
    coalescing.print(std::cout);
    record.add("model", "The text's model of global-memory traffic", intensity);
    record.add("coalescing", "Which accesses coalesce: one warp of each stage", coalescing);
    if (options.analysis_only) return record.finish(kExitPass);
    std::printf("\n");
    if (!gpu_or_explain(program.c_str())) return record.finish(kExitNoGpu);

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    std::printf("device:  %s\nproblem: ", device.summary().c_str());
    std::fflush(stdout);  // the CPU reference can take a while at large sizes
    Problem problem(options);
    std::printf("%s\n\n", problem.describe().c_str());

    std::unique_ptr<const CublasSgemm> cublas;
    if (cublas_available()) cublas = std::make_unique<const CublasSgemm>();
    else std::printf("%-34s %s\n", "cuBLAS SGEMM", cublas_missing().c_str());
    const std::vector<Contender> list_run = contenders(list, options.tile, cublas.get());
    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<Measurement> runs;
    bool all_passed = true;
    for (const Contender& who : list_run) {
      const CheckResult check = problem.check(who);
      std::printf("%-34s %s\n", who.name.c_str(), check.summary().c_str());
      Measurement run{&who, {}, {}, check.ok()};
      if (check.ok()) run.timing = problem.time(who, timer, run.config);
      all_passed = all_passed && check.ok();
      runs.push_back(run);
    }
    std::printf("\n");
    const Table results = results_table(runs, options, device);
    results.print(std::cout);
    record.add("results", list.size() > 1 ? "Stages side by side with cuBLAS" : std::string("Stage ") + list.front()->id +
               " next to cuBLAS", results);
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}

}  // namespace pmpp::ch05
