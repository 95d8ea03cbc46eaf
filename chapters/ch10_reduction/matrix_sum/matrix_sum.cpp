// ch10_matrix_sum: the sum of a large matrix four ways side by side: with host-driven passes, a tree
// inside each block ("inner"), one thread per patch ("outer") and outer with coalesced reads; and in
// one launch, one thread per tall, one-column patch ("outer_columns").
#include <cstdio>
#include <iostream>
#include <sstream>

#include "ch10_reduction/matrix_sum/matrix_sum.hpp"
#include "ch10_reduction/reduction.hpp"
#include "ch10_reduction/runner.hpp"
#include "pmpp/check.hpp"
#include "pmpp/empty_launch.hpp"
#include "pmpp/read_limit.hpp"
#include "pmpp/program.hpp"
#include "pmpp/words.hpp"

using namespace pmpp;
using namespace pmpp::ch10;

namespace {

struct MatrixOptions {
  std::size_t rows = 8192, cols = 8192;
  std::string inputs = "exact";
  std::uint64_t seed = 1;
  int repetitions = 25;
  bool analysis_only = false;
  std::string json;
};

std::string shape_text(MatrixShape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

std::string pass_plan(const std::vector<MatrixShape>& shapes) {
  std::string text;
  for (std::size_t k = 0; k < shapes.size(); ++k) text += (k ? " -> " : "") + shape_text(shapes[k]);
  return text;
}

void print_explanation() {
  struct Strategy {
    const char* id;
    const char* how;
  };
  const Strategy strategies[] = {
      {"inner", "one thread per element, a 16x16 block per patch: the text's tree (10.3-10.6) in every block. "
                "Most of the threads wait for an SM, and every block pays for its own tree: 4 row steps that idle "
                "half the active threads each, 4 column steps where at most one thread per row adds, and a "
                "barrier after each."},
      {"outer", "one thread per patch: it adds 256 elements in a register, with no shared memory and no barrier, "
                "and 256 times fewer threads: coarsening taken all the way. Its loads are not coalesced (lanes "
                "64 bytes apart), but L1 serves the rest of each sector to the lane's next loads."},
      {"outer_coalesced", "the same threads and register sums, but thread x takes columns x, x + C, x + 2C, ... "
                          "(C = the pass's output width), so a warp reads 32 consecutive floats at every step, as "
                          "Fig 10.15 does with input[i + tile * BLOCK_DIM]. Its launch bounds cap its registers "
                          "so that an SM holds a full load of its threads, enough loads in flight to keep DRAM "
                          "busy."},
      {"outer_columns", "one thread per tall, thin patch: 16 rows of one column, four floats wide (4 rows, "
                        "their floats masked, when rows do not start on 16-byte boundaries), so a warp reads "
                        "neighbouring columns at every step. The grid is the size of the GPU, and one launch "
                        "yields the total (the last block combines the blocks' sums, as stage 06 does)."},
  };
  std::printf("How the four relate to thread coarsening (section 10.8):\n");
  for (const Strategy& st : strategies) {
    char first[32];
    std::snprintf(first, sizeof first, "  %-16s ", st.id);
    std::printf("%s", wrap_text(st.how, first, std::string(19, ' ')).c_str());
  }
  std::printf("%s", wrap_text("Look at the passes separately: the first, over the whole matrix, is where coarsening "
                              "pays. The later ones are 256 times smaller each; there the host-driven outer "
                              "strategies run too few threads, each adding 256 values in sequence, and the inner "
                              "tree's many small blocks win: coarsen only while the GPU stays full, which is what "
                              "outer_columns does by sizing its grid to the GPU instead of to the matrix.",
                              "  ", "  ").c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const char* program = "ch10_matrix_sum";
  return guarded_main(program, [&] {
    MatrixOptions o;
    Cli cli(program, "Sum of a rows x cols matrix with host-driven passes (16x16 patches per pass): a tree inside each "
                     "block, one thread per patch, and one thread per patch with coalesced reads; and in one launch, one "
                     "thread per 16-row column patch. Checked against the CPU reference and timed side by side.");
    cli.option("--rows", o.rows, "matrix rows", 1, std::int64_t{1} << 19)
        .option("--cols", o.cols, "matrix columns", 1, std::int64_t{1} << 19)
        .option("--inputs", o.inputs,
                "exact: small integers, exact in any order (bit-exact check); floats: random in [-1, 1) with the "
                "rounding bound",
                {"exact", "floats"})
        .option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
        .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
        .flag("--analysis", o.analysis_only, "print the pass plan and the explanation only (needs no GPU)")
        .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
    if (!cli.parse(argc, argv)) return int{kExitPass};
    const MatrixShape shape{o.rows, o.cols};
    if (shape.size() > (std::size_t{1} << 31))
      throw UsageError("--rows x --cols is " + std::to_string(shape.size()) + " elements; at most 2^31 are supported");

    char plan[160];
    std::snprintf(plan, sizeof plan, "%s floats; host-driven passes of %ux%u patches: %s, %s; outer_columns: one "
                  "launch", shape_text(shape).c_str(), MATRIX_PATCH, MATRIX_PATCH,
                  count_of(static_cast<long long>(pass_shapes(shape).size() - 1), "pass", "passes").c_str(),
                  pass_plan(pass_shapes(shape)).c_str());
    std::printf("%s\n", wrap_text(plan, std::string(program) + ": ", "  ").c_str());
    print_explanation();
    RunRecord record(program, command_line(argc, argv), o.json);
    record.set_problem(shape_text(shape) + " matrix of " + (o.inputs == "floats" ? "random floats" : "small integers"));
    if (o.analysis_only) return record.finish(kExitPass);
    std::printf("\n");
    if (!gpu_or_explain(program)) return record.finish(kExitNoGpu);

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    const GpuShape gpu = current_gpu_shape();
    const InputKind kind = o.inputs == "floats" ? InputKind::floats : InputKind::exact;
    const std::vector<float> matrix = make_inputs(shape.size(), Op::sum, kind, o.seed);
    const double want = matrix_sum_reference(matrix);
    const bool exact = sum_is_exact_in_float(matrix);
    const double magnitudes = sum_of_magnitudes(matrix);
    const std::string indent(9, ' ');
    std::printf("%s%s\n", wrap_text(device.summary(), "device:  ", indent).c_str(),
                wrap_text(shape_text(shape) + "; inputs: " + describe_inputs(shape.size(), Op::sum, kind), "problem: ",
                          indent)
                    .c_str());

    const DeviceBuffer<float> d_matrix(matrix);
    KernelTimer timer(TimingOptions{3, o.repetitions, true});
    const Timing empty = timer.time([] { launch_empty_kernel(); });
    Table per_pass({"strategy", "pass", "shape", "grid x block", "threads", "median ms", "GB/s", "limited by"});
    Table totals({"strategy", "check", "passes", "median ms", "GB/s", "% peak DRAM", "x inner"});
    double inner_ms = 0;
    bool all_passed = true;
    for (const MatrixStrategy& s : matrix_strategies()) {
      MatrixPasses passes(s, shape);
      std::vector<PassLaunch> launches;
      const float* result = passes.run(d_matrix.data(), &launches);
      CUDA_CHECK(cudaDeviceSynchronize());
      float got = 0;
      CUDA_CHECK(cudaMemcpy(&got, result, sizeof got, cudaMemcpyDeviceToHost));
      // Each strategy's own longest chain of roundings bounds its error: gamma_k * sum|x|.
      const Tolerance tolerance = exact ? Tolerance::exact() : Tolerance{sum_error_bound(s.rounding_depth(shape), magnitudes), 0};
      const bool ok = within(got, want, tolerance);
      all_passed = all_passed && ok;
      std::printf("%-16s %s: got %.9g, want %.9g%s\n", s.id, ok ? "PASS" : "FAIL", got, want,
                  exact ? " (exact)" : "");
      if (!ok) {
        totals.add_row({s.id, "FAIL"});
        continue;
      }
      for (std::size_t k = 0; k < passes.passes(); ++k) {
        const Timing t = timer.time([&] { passes.run_pass(k, d_matrix.data()); });
        const PassLaunch& l = launches[k];
        const double threads = static_cast<double>(l.grid_x) * l.grid_y * l.block_x * l.block_y;
        const double bytes = 4.0 * passes.shapes()[k].size();
        const PassEvidence evidence{t.median_ms, bytes, threads,
                                    static_cast<double>(gpu.sm_count) * gpu.max_threads_per_sm, empty.median_ms,
                                    device.peak_dram_gbps};
        per_pass.add_row({s.id, std::to_string(k + 1),
                          shape_text(passes.shapes()[k]) + " -> " + shape_text(passes.shapes()[k + 1]), l.to_string(),
                          Cell::num(threads, 0), Cell::num(t.median_ms, 4), Cell::num(gb_per_s(bytes, t.median_ms), 0),
                          pass_limiter(evidence)});
      }
      const Timing total = timer.time([&] { passes.run(d_matrix.data()); });
      if (inner_ms == 0) inner_ms = total.median_ms;
      const double gbps = gb_per_s(4.0 * shape.size(), total.median_ms);
      totals.add_row({s.id, "PASS", std::to_string(passes.passes()), Cell::num(total.median_ms, 4), Cell::num(gbps, 0),
                      Cell::num(100.0 * gbps / device.peak_dram_gbps, 1), Cell::num(inner_ms / total.median_ms, 2)});
    }
    const ReadLimit limit = time_read_once(d_matrix.data(), d_matrix.bytes(), timer);
    const double limit_gbps = gb_per_s(4.0 * shape.size(), limit.timing.median_ms);
    totals.add_row({"limit: read once", "-", "1", Cell::num(limit.timing.median_ms, 4), Cell::num(limit_gbps, 0),
                    Cell::num(100.0 * limit_gbps / device.peak_dram_gbps, 1),
                    inner_ms > 0 ? Cell::num(inner_ms / limit.timing.median_ms, 2) : Cell::none()});
    per_pass.add_note("GB/s: the pass's input bytes over its time (each host-driven pass also writes 1/256 as much).");
    char limiter_note[320];
    std::snprintf(limiter_note, sizeof limiter_note,
                  "limited by: read from the time: DRAM when the pass reads at >= 75%% of peak, launch latency when it "
                  "takes < 2x an empty kernel (%.1f us here), too few threads (each adding in sequence) below a "
                  "quarter of the %d x %d the GPU holds. profile/recorded/ has the counters.",
                  1e3 * empty.median_ms, gpu.sm_count, gpu.max_threads_per_sm);
    per_pass.add_note(limiter_note);
    totals.add_note("All passes, launched back to back; GB/s counts one read of the matrix.");
    totals.add_note("'x inner': speed-up over inner.");
    totals.add_note(std::string(kReadLimitNote) + " Any strategy reads the whole matrix; the flat array it is stored "
                    "in is read here as one.");
    std::printf("\nEach pass alone:\n");
    per_pass.print(std::cout);
    std::printf("\nAll passes:\n");
    totals.print(std::cout);
    record.add("passes", "Each pass of each strategy alone", per_pass);
    record.add("totals", "All passes of each strategy", totals);
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}
