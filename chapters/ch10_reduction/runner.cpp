// The shared body of the chapter-10 programs (see runner.hpp): options, the problem, the runs, and
// run_program. The tables are in tables.cpp.
#include "ch10_reduction/runner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "pmpp/cuda_check.hpp"
#include "pmpp/empty_launch.hpp"
#include "pmpp/next_steps.hpp"
#include "pmpp/program.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10 {

// ---- Options -----------------------------------------------------------------------------------

namespace {
bool every(const std::vector<const Stage*>& list, bool Stage::*flag) {
  return std::all_of(list.begin(), list.end(), [&](const Stage* s) { return s->*flag; });
}
bool any(const std::vector<const Stage*>& list, bool Stage::*flag) {
  return std::any_of(list.begin(), list.end(), [&](const Stage* s) { return s->*flag; });
}
// "01, 02 and 03": the stage numbers (the id up to its first '_') of the stages in @p list without @p flag.
std::string numbers_without(const std::vector<const Stage*>& list, bool Stage::*flag) {
  std::vector<std::string> numbers;
  for (const Stage* s : list)
    if (!(s->*flag)) numbers.push_back(std::string(s->id).substr(0, std::string(s->id).find('_')));
  std::string text;
  for (std::size_t k = 0; k < numbers.size(); ++k)
    text += (k == 0 ? "" : k + 1 == numbers.size() ? " and " : ", ") + numbers[k];
  return text;
}
}  // namespace

void add_options(Cli& cli, Options& o, const std::vector<const Stage*>& list) {
  const bool single_block = std::all_of(list.begin(), list.end(), [](const Stage* s) {
    return s->max_n <= SINGLE_BLOCK_MAX_N;
  });
  cli.option("--n", o.n,
             single_block ? "number of floats to reduce (at most " + std::to_string(SINGLE_BLOCK_MAX_N) +
                                ": one block of " + std::to_string(MAX_BLOCK_DIM) + " threads)"
                          : std::string("number of floats to reduce"),
             0, std::int64_t{1} << 33);
  if (any(list, &Stage::all_operators)) {
    std::string help = "the operator (section 10.1)";
    if (!every(list, &Stage::all_operators))
      help += "; stages " + numbers_without(list, &Stage::all_operators) + " take the sum only and sit out the others";
    cli.option("--op", o.op, help, op_names());
  }
  cli.option("--inputs", o.inputs,
             "exact: inputs whose sum is exact in float in any order, checked bit for bit; floats: random floats "
             "in [-1, 1), checked against the rounding-error bound (sums only)",
             {"exact", "floats"})
      .option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
      .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
      .flag("--analysis", o.analysis_only, "print the text's analysis only (needs no GPU)")
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
  if (every(list, &Stage::traceable))
    cli.flag("--trace", o.trace,
             "print each step's adding threads and the elements they add, recorded on the GPU (n <= " +
                 std::to_string(kMaxTraceN) + ")");
}

std::string unsupported(const Stage& stage, const Options& o) {
  if (o.n > stage.max_n)
    return std::string(stage.id) + " reduces in one block of at most " + std::to_string(MAX_BLOCK_DIM) +
           " threads, two elements each: n <= " + std::to_string(stage.max_n) + " (stage 04 lifts the limit)";
  if (!stage.all_operators && o.parsed_op() != Op::sum)
    return std::string(stage.id) + " is the text's sum kernel; --op " + o.op + " needs stage 05 or 06";
  return "";
}

std::string problem_in_words(const Options& o) {
  std::string count = std::to_string(o.n);
  if (o.n >= (std::size_t{1} << 16) && (o.n & (o.n - 1)) == 0) {  // a large power of two reads better as 2^k
    int k = 0;
    while ((std::size_t{1} << k) < o.n) ++k;
    count = "2^" + std::to_string(k);
  }
  std::string words = std::string(op_name(o.parsed_op())) + " of " + count + (o.n == 1 ? " float" : " floats");
  if (o.parsed_op() == Op::sum)
    words += o.input_kind() == InputKind::floats ? ", random in [-1, 1)" : ", small integers (exact sums)";
  return words;
}

void validate(const Options& o, const std::vector<const Stage*>& list) {
  o.parsed_op();  // throws for an unknown operator
  if (list.size() == 1) {
    if (const std::string why = unsupported(*list.front(), o); !why.empty())
      throw UsageError(why + ", got --n " + std::to_string(o.n) + " --op " + o.op);
  }
  if (o.trace && o.n > kMaxTraceN)
    throw UsageError("--trace prints every adding thread of every step: use --n <= " + std::to_string(kMaxTraceN) +
                     ", got " + std::to_string(o.n));
}

// ---- The problem ---------------------------------------------------------------------------------

std::string Check::summary() const {
  char line[256];
  if (tolerance.abs == 0 && tolerance.rel == 0)
    std::snprintf(line, sizeof line, "%s: got %.9g, want %.9g (exact)", ok ? "PASS" : "FAIL", got, want);
  else
    std::snprintf(line, sizeof line, "%s: got %.9g, want %.9g, |error| %.3g %s bound %.3g", ok ? "PASS" : "FAIL",
                  got, want, std::fabs(got - want), ok ? "<=" : ">", tolerance.abs);
  return line;
}

Problem::Problem(const Options& o) : options_(o), op_(o.parsed_op()) {
  input_ = make_inputs(o.n, op_, o.input_kind(), o.seed);
  reference_ = reduce_reference(input_, op_);
  sum_abs_ = sum_of_magnitudes(input_);
  // Max and min never round; the product inputs are powers of two; sums of small integers are exact
  // while sum|x| <= 2^24. Everything else is checked against the rounding-error bound.
  exact_ = op_ != Op::sum || sum_is_exact_in_float(input_);
  d_input_ = DeviceBuffer<float>(input_);
  d_output_ = DeviceBuffer<float>(1);
  if (o.n <= SINGLE_BLOCK_MAX_N) d_work_ = DeviceBuffer<float>(std::max<std::size_t>(o.n, 1));
}

std::string Problem::describe() const {
  const std::string indent(9, ' ');
  std::string s = wrap_text(count_of(static_cast<long long>(options_.n), "float") + ", " + op_name(op_) +
                                ", seed " + std::to_string(options_.seed),
                            "problem: ", indent);
  s += wrap_text(describe_inputs(options_.n, op_, options_.input_kind()), indent + "inputs: ", indent + "  ");
  if (!exact_) {
    char bound[160];
    std::snprintf(bound, sizeof bound, "sum|x| = %g; bound gamma_k * sum|x|, gamma_k = k u / (1 - k u), u = 2^-24",
                  sum_abs_);
    s += wrap_text(bound, indent, indent + "  ");
  }
  return s;
}

void Problem::restore_input(const Stage& stage) {
  // Stages 01 and 02 overwrite their input: they work on a copy, refreshed before every run.
  if (stage.in_place && options_.n > 0)
    CUDA_CHECK(cudaMemcpyAsync(d_work_.data(), d_input_.data(), d_input_.bytes(), cudaMemcpyDeviceToDevice));
}

ReduceArgs Problem::args(const Stage& stage) {
  ReduceArgs a;
  a.input = stage.in_place ? d_work_.data() : d_input_.data();
  a.output = d_output_.data();
  a.n = options_.n;
  a.op = op_;
  if (stage.scratch_bytes != nullptr) {
    auto found = scratch_.find(stage.id);
    if (found == scratch_.end()) {
      DeviceBuffer<unsigned char> scratch(std::max<std::size_t>(stage.scratch_bytes(options_.n, op_), 1));
      CUDA_CHECK(cudaMemset(scratch.data(), 0, scratch.bytes()));  // once: the stages leave it zeroed
      found = scratch_.emplace(stage.id, std::move(scratch)).first;
    }
    a.scratch = found->second.data();
  }
  return a;
}

Check Problem::check(const Stage& stage) {
  restore_input(stage);
  d_output_.poison();  // NaN: a kernel that never writes the output cannot pass
  Check c;
  c.launch = stage.launch(args(stage));
  CUDA_CHECK(cudaDeviceSynchronize());
  c.got = d_output_.to_host()[0];
  c.want = reference_;
  c.tolerance = exact_ ? Tolerance::exact() : Tolerance{sum_error_bound(c.launch.rounding_depth, sum_abs_), 0};
  c.ok = within(c.got, c.want, c.tolerance);
  return c;
}

Timing Problem::time(const Stage& stage, KernelTimer& timer) {
  const ReduceArgs a = args(stage);
  return timer.time([&] { restore_input(stage); }, [&] { stage.launch(a); });
}

ResourceCounts Problem::measure(const Stage& stage) {
  restore_input(stage);
  return measure_counts(stage, args(stage));
}

std::vector<TraceRecord> Problem::trace(const Stage& stage) {
  restore_input(stage);
  return record_trace(stage, args(stage));
}

Measurement run_stage(Problem& problem, const Stage& stage, KernelTimer& timer) {
  Measurement m;
  m.stage = &stage;
  m.skipped = unsupported(stage, problem.options());
  if (!m.skipped.empty()) return m;
  m.check = problem.check(stage);
  if (!m.check.ok) return m;  // no performance for a wrong answer
  m.timing = problem.time(stage, timer);
  if (stage.launch_counted != nullptr) m.counts = problem.measure(stage);
  return m;
}

// ---- The program ----------------------------------------------------------------------------------

namespace {
/// The analysis the text's rules predict, where nothing is measured (--analysis, or no GPU).
Table predicted_analysis(const std::vector<const Stage*>& list, const Options& options) {
  if (list.size() == 1)
    return analysis_table(*list.front(), options.n, list.front()->plan(options.n, GpuShape{}), std::nullopt);
  std::vector<Measurement> planned;
  for (const Stage* s : list) planned.push_back({s, unsupported(*s, options), {}, {}, std::nullopt});
  return analysis_summary(planned, options.n, GpuShape{});
}

/// Which GPU the predicted analysis planned for, where a stage's launch depends on it ("" otherwise).
std::string assumed_gpu_note(const std::vector<const Stage*>& list) {
  std::vector<std::string> ids;
  for (const Stage* s : list)
    if (s->sized_to_gpu) ids.push_back(s->id);
  if (ids.empty()) return "";
  std::string who = ids.size() == 1 ? "Stage " + ids.front() + " sizes its grid" : "Stages that size their grid";
  return who + " to the GPU: planned here for " + kAssumedGpu + "; run on a GPU, the program plans for that GPU.";
}
}  // namespace

int run_program(const std::string& program, const std::string& summary, const std::vector<const Stage*>& list,
                int argc, char** argv) {
  return guarded_main(program.c_str(), [&] {
    Options options;
    if (list.size() == 1) options.n = list.front()->default_n;
    Cli cli(program, summary);
    add_options(cli, options, list);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options, list);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));

    std::printf("%s, %s\n", program.c_str(), problem_in_words(options).c_str());
    for (const Stage* s : list) {
      char id[32];
      std::snprintf(id, sizeof id, "  %-22s ", s->id);
      std::printf("%s", wrap_text(std::string(s->title) + " (" + s->figure + ")", id, std::string(27, ' ')).c_str());
    }
    std::printf("\n");

    std::string no_gpu;
    if (options.analysis_only || !gpu_available(&no_gpu)) {
      std::printf("The text's analysis for n = %zu:\n", options.n);
      const Table predicted = predicted_analysis(list, options);
      predicted.print(std::cout);
      if (const std::string note = assumed_gpu_note(list); !note.empty()) std::printf("%s", wrap_text(note).c_str());
      record.add("analysis", "The text's analysis, counted for each stage", predicted);
      record.add("profile", "What a profiler compares its counters with",
                 profile_table(list, options, GpuShape{}));
      if (options.analysis_only) return record.finish(kExitPass);
      std::printf("\n");
      explain_no_gpu(program.c_str(), no_gpu);
      return record.finish(kExitNoGpu);
    }

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    std::printf("%s", wrap_text(device.summary(), "device:  ", std::string(9, ' ')).c_str());
    std::fflush(stdout);  // the CPU reference can take a while at large sizes
    Problem problem(options);
    std::printf("%s\n", problem.describe().c_str());

    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<Measurement> runs;
    bool all_passed = true;
    for (const Stage* stage : list) {
      runs.push_back(run_stage(problem, *stage, timer));
      const Measurement& r = runs.back();
      std::printf("%s", wrap_text(r.skipped.empty() ? r.check.summary() : "skipped", std::string(stage->id) + ": ",
                                  "    ").c_str());
      all_passed = all_passed && (!r.skipped.empty() || r.check.ok);
    }
    const Measurement cub = run_stage(problem, cub_baseline(), timer);
    std::printf("%s", wrap_text(cub.check.summary(), "cub: ", "    ").c_str());
    all_passed = all_passed && cub.check.ok;
    if (list.size() == 1 && runs.front().check.ok)
      std::printf("launch: %s\n", runs.front().check.launch.to_string().c_str());
    std::printf("\n");
    runs.push_back(cub);

    const Timing empty_launch = timer.time(launch_empty_kernel);  // the fixed cost in the limit row
    const ReadLimit read_limit = problem.read_limit(timer);         // what DRAM delivers, measured
    const Table results = results_table(runs, options.n, device, &runs.back(), &empty_launch, &read_limit);
    results.print(std::cout);
    runs.pop_back();
    record.add("results", list.size() == 1 ? std::string("Stage ") + list.front()->id + " next to CUB"
                                           : std::string("Stages side by side with CUB"),
               results);

    record.add("profile", "What a profiler compares its counters with",
               profile_table(list, options, current_gpu_shape()));
    if (list.size() == 1 && !runs.front().check.ok) return record.finish(kExitCheckFailed);

    std::printf("\nThe text's analysis next to what the counting build measured on the GPU:\n");
    const Table analysis = list.size() == 1 ? analysis_table(*list.front(), options.n, runs.front().check.launch,
                                                             runs.front().counts)
                                            : analysis_summary(runs, options.n, current_gpu_shape());
    analysis.print(std::cout);
    record.add("analysis", "The text's analysis next to what the counting build measured", analysis);
    if (options.trace) {
      std::printf("\n");
      print_trace(*list.front(), problem.trace(*list.front()), problem.input());
    }
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}

}  // namespace pmpp::ch10
