// The shared body of the chapter-10 programs (see runner.hpp).
#include "ch10_reduction/runner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10 {

// ---- Options -----------------------------------------------------------------------------------

void add_options(Cli& cli, Options& o, bool traceable) {
  cli.option("--n", o.n, "number of floats to reduce", 0, std::int64_t{1} << 33)
      .option("--op", o.op, "the operator (section 10.1); stages 01-04 implement the text's sum only", op_names())
      .option("--inputs", o.inputs,
              "exact: inputs whose reduction is exact in float in any order, checked bit for bit; floats: random "
              "floats in [-1, 1), checked against the rounding-error bound (sum only)",
              {"exact", "floats"})
      .option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
      .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
      .flag("--analysis", o.analysis_only, "print the text's analysis only (needs no GPU)")
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
  if (traceable)
    cli.flag("--trace", o.trace,
             "print each step's adding threads and the elements they add, recorded on the GPU (n <= 64)");
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
  std::string words = std::string(op_name(o.parsed_op())) + " of " + count + " floats";
  if (o.parsed_op() == Op::sum)
    words += o.input_kind() == InputKind::floats ? ", random in [-1, 1)" : ", small integers (exact sums)";
  return words;
}

void validate(const Options& o, const Stage* stage) {
  o.parsed_op();  // throws for an unknown operator
  if (stage != nullptr) {
    if (const std::string why = unsupported(*stage, o); !why.empty())
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
    std::snprintf(line, sizeof line, "%s: got %.9g, want %.9g; |error| %.3g <= bound %.3g: %s", ok ? "PASS" : "FAIL",
                  got, want, std::fabs(got - want), tolerance.abs, ok ? "yes" : "no");
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
  std::ostringstream s;
  s << options_.n << " floats, " << op_name(op_) << ", seed " << options_.seed << "\n         inputs: "
    << describe_inputs(options_.n, op_, options_.input_kind());
  if (!exact_)
    s << "\n         sum|x| = " << sum_abs_ << "; bound gamma_k * sum|x|, gamma_k = k u / (1 - k u), u = 2^-24";
  return s.str();
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
  c.config = stage.launch(args(stage));
  CUDA_CHECK(cudaDeviceSynchronize());
  c.got = d_output_.to_host()[0];
  c.want = reference_;
  c.tolerance = exact_ ? Tolerance::exact() : Tolerance{sum_error_bound(c.config.rounding_depth, sum_abs_), 0};
  c.ok = within(c.got, c.want, c.tolerance);
  return c;
}

Timing Problem::time(const Stage& stage, KernelTimer& timer) {
  const ReduceArgs a = args(stage);
  return timer.time([&] { restore_input(stage); }, [&] { stage.launch(a); });
}

ResourceCounts Problem::measure(const Stage& stage, LaunchConfig& config) {
  restore_input(stage);
  return measure_counts(stage, args(stage), &config);
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
  if (stage.model != nullptr) {
    LaunchConfig launched;
    m.counts = problem.measure(stage, launched);
  }
  return m;
}

// ---- Tables ----------------------------------------------------------------------------------------

Table results_table(const std::vector<Measurement>& runs, std::size_t n, const DeviceInfo& device,
                    const Measurement* baseline, const Timing* empty_launch, const ReadLimit* read_limit) {
  Table t({"stage", "check", "grid x block", "launches", "median ms", "GB/s", "% peak DRAM", "x CUB"});
  const double bytes = static_cast<double>(n) * sizeof(float);
  const bool have_baseline = baseline != nullptr && baseline->check.ok && baseline->timing.median_ms > 0;
  const auto x_baseline = [&](double ms) {
    return have_baseline ? Cell::num(baseline->timing.median_ms / ms, 2) : Cell::none();
  };
  for (const auto& r : runs) {
    if (!r.skipped.empty()) {
      t.add_row({r.stage->id, "skipped"});
      t.add_note(std::string(r.stage->id) + " skipped: " + r.skipped);
      continue;
    }
    const LaunchConfig& c = r.check.config;
    const std::string shape = c.block == 0 ? "-" : std::to_string(c.grid) + " x " + std::to_string(c.block);
    const std::string launches = c.launches == 0 ? "-" : std::to_string(c.launches);
    if (!r.check.ok) {  // no performance for a wrong answer
      t.add_row({r.stage->id, "FAIL", shape, launches});
      continue;
    }
    const double ms = r.timing.median_ms, gbps = gb_per_s(bytes, ms);
    t.add_row({r.stage->id, "PASS", shape, launches, Cell::num(ms, 4), Cell::num(gbps, 0),
               Cell::num(100.0 * gbps / device.peak_dram_gbps, 1), x_baseline(ms)});
  }
  const bool show_read = read_limit != nullptr && device.peak_dram_gbps > 0;
  if (show_read) {
    const double ms = read_limit->timing.median_ms, gbps = gb_per_s(bytes, ms);
    t.add_row({"limit: read once", "-", std::to_string(read_limit->grid) + " x " + std::to_string(read_limit->block),
               "1", Cell::num(ms, 4), Cell::num(gbps, 0), Cell::num(100.0 * gbps / device.peak_dram_gbps, 1),
               x_baseline(ms)});
  }
  const bool show_limit = empty_launch != nullptr && device.peak_dram_gbps > 0;
  const double read_ms = device.ms_at_peak_dram(bytes);
  if (show_limit) {
    const double ms = empty_launch->median_ms + read_ms, gbps = gb_per_s(bytes, ms);
    t.add_row({"limit: one launch", "-", "-", "1", Cell::num(ms, 4), Cell::num(gbps, 0),
               Cell::num(100.0 * gbps / device.peak_dram_gbps, 1), x_baseline(ms)});
  }
  t.add_note("GB/s counts one read of the input (4n bytes), the least any reduction must move: '% peak DRAM' is the "
             "fraction of the DRAM limit reached.");
  t.add_note("Timed launches only, median of the repetitions, L2 flushed before each.");
  t.add_note("'x CUB' is throughput relative to cub::DeviceReduce in this run (> 1: faster).");
  if (show_read)
    t.add_note(std::string(kReadLimitNote) + " A reduction reads as much and does more.");
  if (show_limit) {
    char line[300];
    std::snprintf(line, sizeof line,
                  "limit: one launch = an empty kernel, timed the same way (%.3g us: launch, start-up, events), plus "
                  "one read of the input at peak DRAM (%.3g us). No reduction in one launch can be faster; one in two "
                  "launches pays the empty kernel twice.",
                  1e3 * empty_launch->median_ms, 1e3 * read_ms);
    t.add_note(line);
  }
  return t;
}

namespace {
Cell count_cell(const std::optional<unsigned long long>& v) {
  return v ? Cell::num(static_cast<double>(*v), 0) : Cell::none();
}
Cell count_cell(unsigned long long v) { return Cell::num(static_cast<double>(v), 0); }
Cell ratio_cell(std::optional<unsigned long long> num, std::optional<unsigned long long> den) {
  if (!num || !den || *den == 0) return Cell::none();
  return Cell::num(static_cast<double>(*num) / static_cast<double>(*den), 3);
}
// The reason a text figure differs from the count, or "" when they agree (or the text has none).
std::string why(const std::optional<unsigned long long>& text, unsigned long long counted, const char* note) {
  if (!text || *text == counted) return "";
  return (note != nullptr && *note != '\0') ? note : "not explained: the text's figure and the count disagree";
}

// Footnotes under a table: a cell shows "(a)", the note below the table says why, wrapped.
class Footnotes {
 public:
  explicit Footnotes(Table& table) : table_(table) {}
  /// The mark for @p text ("" for no text); the same text gets the same mark.
  std::string mark(const std::string& text) {
    if (text.empty()) return "";
    auto found = std::find(texts_.begin(), texts_.end(), text);
    if (found == texts_.end()) {
      texts_.push_back(text);
      found = texts_.end() - 1;
    }
    return std::string("(") + static_cast<char>('a' + (found - texts_.begin())) + ")";
  }
  /// Add the notes to the table, one per mark ("(a) why").
  void flush() {
    for (std::size_t k = 0; k < texts_.size(); ++k)
      table_.add_note(std::string("(") + static_cast<char>('a' + k) + ") " + texts_[k]);
  }

 private:
  Table& table_;
  std::vector<std::string> texts_;
};
}  // namespace

Table analysis_table(const Stage& stage, std::size_t n, const LaunchConfig& config,
                     const std::optional<ResourceCounts>& measured) {
  Table t({"quantity", "text", "counted", "measured on GPU", "note"});
  Footnotes notes(t);
  const TextFigures text = stage.text ? stage.text(n) : TextFigures{};
  const ResourceCounts model = stage.model(n, config);
  auto measured_cell = [&](unsigned long long ResourceCounts::*field) {
    return measured ? count_cell((*measured).*field) : Cell::none();
  };
  t.add_row({"committed results (adding lanes)", count_cell(text.committed), count_cell(model.committed),
             measured_cell(&ResourceCounts::committed), notes.mark(why(text.committed, model.committed, ""))});
  t.add_row({"consumed lanes (32 per busy warp)", count_cell(text.consumed), count_cell(model.consumed),
             measured_cell(&ResourceCounts::consumed),
             notes.mark(why(text.consumed, model.consumed, stage.consumed_note))});
  t.add_row({"execution-resource efficiency", ratio_cell(text.committed, text.consumed),
             Cell::num(model.efficiency(), 3), measured ? Cell::num(measured->efficiency(), 3) : Cell::none(), ""});
  t.add_row({"global requests (128-B segments)", count_cell(text.requests), count_cell(model.requests),
             measured_cell(&ResourceCounts::requests),
             notes.mark(why(text.requests, model.requests, stage.requests_note))});
  t.add_row({"warp-wide global accesses", Cell::none(), count_cell(model.accesses),
             measured_cell(&ResourceCounts::accesses), ""});
  if (measured && *measured != model)
    t.add_note("MISMATCH: the GPU counted differently from the model, so the model does not describe this kernel.");
  notes.flush();
  if (!text.committed && !text.consumed && !text.requests)
    t.add_note(stage.text ? "text: its closed forms need N a power of two >= 64 (and whole segments); this n is not one"
                          : "text: no formula for this stage; 'counted' applies the text's rules to it");
  t.add_note("counted: the text's rules applied warp by warp to this kernel as written, for this n; measured: the "
             "instrumented build of the same kernel source, counting with warp votes on the GPU.");
  return t;
}

Table analysis_summary(const std::vector<Measurement>& runs, std::size_t n, const GpuShape& gpu) {
  Table t({"stage", "efficiency: text", "efficiency: counted", "efficiency: measured", "requests: text",
           "requests: counted", "requests: measured", "note"});
  Footnotes notes(t);
  for (const auto& r : runs) {
    const Stage& s = *r.stage;
    if (s.model == nullptr || !r.skipped.empty()) continue;
    const LaunchConfig config = r.check.config.launches > 0 ? r.check.config : s.plan(n, gpu);
    const TextFigures text = s.text ? s.text(n) : TextFigures{};
    const ResourceCounts model = s.model(n, config);
    std::string note = notes.mark(why(text.consumed, model.consumed, s.consumed_note));
    note += notes.mark(why(text.requests, model.requests, s.requests_note));
    if (r.counts && *r.counts != model) note += notes.mark("MISMATCH: the GPU counted differently from the model");
    t.add_row({s.id, ratio_cell(text.committed, text.consumed), Cell::num(model.efficiency(), 3),
               r.counts ? Cell::num(r.counts->efficiency(), 3) : Cell::none(), count_cell(text.requests),
               count_cell(model.requests), r.counts ? count_cell(r.counts->requests) : Cell::none(), note});
  }
  notes.flush();
  t.add_note("efficiency = committed results / consumed lanes (section 10.4); requests = distinct 128-byte segments "
             "per warp access (section 10.5).");
  t.add_note("text: its closed forms (N a power of two >= 64; per segment for 04-05); counted: the same rules applied "
             "to each kernel; measured: its instrumented build on the GPU.");
  return t;
}

void print_trace(const Stage& stage, const std::vector<TraceRecord>& trace, const std::vector<float>& input) {
  const unsigned threads = single_block_threads(input.size());
  std::printf("Trace recorded on the GPU by the instrumented build of %s, n = %zu, %u threads:\n", stage.id,
              input.size(), threads);
  std::printf("  (%s; '#' marks a thread that adds, '|' separates warps)\n", stage.trace_legend);
  std::vector<double> values(input.begin(), input.end());
  std::size_t first = 0;
  while (first < trace.size()) {
    const unsigned step = trace[first].step;
    std::size_t last = first;
    while (last < trace.size() && trace[last].step == step) ++last;
    std::string lanes(threads, '.');
    for (std::size_t k = first; k < last; ++k) lanes[trace[k].thread] = '#';
    for (std::size_t w = (threads - 1) / 32; w >= 1; --w) lanes.insert(w * 32, "|");
    std::printf("  step %u: %2zu threads  %s\n          ", step, last - first, lanes.c_str());
    std::size_t width = 0;
    for (std::size_t k = first; k < last; ++k) {
      char entry[64];
      std::snprintf(entry, sizeof entry, "t%u: [%lld]+=[%lld]  ", trace[k].thread, trace[k].dst, trace[k].src);
      if (width > 90) {
        std::printf("\n          ");
        width = 0;
      }
      std::printf("%s", entry);
      width += std::string(entry).size();
      if (stage.in_place)
        values[static_cast<std::size_t>(trace[k].dst)] += values[static_cast<std::size_t>(trace[k].src)];
    }
    std::printf("\n");
    if (stage.in_place) {
      std::printf("          input after the step:");
      for (double v : values) std::printf(" %g", v);
      std::printf("\n");
    }
    first = last;
  }
  if (stage.in_place && !values.empty())
    std::printf("  Replaying the recorded adds on the CPU leaves input[0] = %g, the reduction's result.\n", values[0]);
}

}  // namespace pmpp::ch10
