// The tables the chapter-10 programs print and record (see runner.hpp), and the trace.
#include <algorithm>
#include <cstdio>
#include <string>

#include "ch10_reduction/runner.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10 {

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
    const ReductionLaunch& c = r.check.launch;
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

Table analysis_table(const Stage& stage, std::size_t n, const ReductionLaunch& launch,
                     const std::optional<ResourceCounts>& measured) {
  Table t({"quantity", "text", "counted", "measured on GPU", "note"});
  Footnotes notes(t);
  const TextFigures text = stage.text ? stage.text(n) : TextFigures{};
  const ResourceCounts model = stage.model(n, launch);
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
  t.add_row({"32-B sectors per global load", Cell::none(), Cell::num(model.sectors_per_load(), 2),
             measured ? Cell::num(measured->sectors_per_load(), 2) : Cell::none(), ""});
  if (measured && *measured != model)
    t.add_note("MISMATCH: the GPU counted differently from the model, so the model does not describe this kernel.");
  notes.flush();
  if (!text.committed && !text.consumed && !text.requests)
    t.add_note(stage.text ? "text: its closed forms need N a power of two >= 64 (and whole segments); this n is not one"
                          : "text: no formula for this stage; 'counted' applies the text's rules to it");
  t.add_note("counted: the text's rules applied warp by warp to this kernel as written, for this n; measured: the "
             "same kernel run on CountedFloat (the counting build), counting with warp votes on the GPU.");
  return t;
}

Table analysis_summary(const std::vector<Measurement>& runs, std::size_t n, const GpuShape& gpu) {
  Table t({"stage", "efficiency: text", "efficiency: counted", "efficiency: measured", "requests: text",
           "requests: counted", "requests: measured", "note"});
  Footnotes notes(t);
  for (const auto& r : runs) {
    const Stage& s = *r.stage;
    if (s.model == nullptr || !r.skipped.empty()) continue;
    const ReductionLaunch launch = r.check.launch.launches > 0 ? r.check.launch : s.plan(n, gpu);
    const TextFigures text = s.text ? s.text(n) : TextFigures{};
    const ResourceCounts model = s.model(n, launch);
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
             "to each kernel; measured: its counting build on the GPU.");
  return t;
}

Table profile_table(const std::vector<const Stage*>& list, const Options& options, const GpuShape& gpu) {
  Table t({"stage", "tile", "flops", "compulsory read B", "compulsory write B", "text model OP/B", "DRAM-read OP/B",
           "sectors per request", "threads per warp", "bank conflicts", "shared access", "note"});
  const std::size_t n = options.n;
  // n - 1 operator applications combine n values into one; the input is read once, the result written once.
  const double ops = n > 0 ? static_cast<double>(n - 1) : 0.0, read = 4.0 * static_cast<double>(n), write = 4.0;
  for (const Stage* s : list) {
    if (s->model == nullptr) continue;
    const ResourceCounts model = s->model(n, s->plan(n, gpu));
    t.add_row({s->id, "-", Cell::num(ops, 0), Cell::num(read, 0), Cell::num(write, 0), Cell::none(),
               n > 0 ? Cell::num(ops / read, 3) : Cell::none(),
               model.loads > 0 ? fixed(model.sectors_per_load(), 1) : std::string("-"),
               model.consumed > 0 ? Cell::num(32.0 * model.efficiency(), 1) : Cell::none(),
               s->profile.bank_conflicts < 0 ? Cell::none() : Cell::num(s->profile.bank_conflicts, 0),
               s->profile.shared_access, s->profile.counters});
  }
  t.add_note("text model OP/B: the text gives no intensity model for reduction. sectors per request: 32-byte sectors "
             "per warp-wide global load, and threads per warp: 32 x the execution-resource efficiency at the adds, "
             "both from the text's rules counted for each kernel (the counting build measures the same on a GPU).");
  return t;
}

namespace {
/// @p items after @p first, separated by @p gap, in lines of at most kTerminalWidth columns; the
/// continuation lines start under the first item.
std::string flow(const std::vector<std::string>& items, const std::string& first, const std::string& gap) {
  std::string out, line = first;
  bool empty = true;
  for (const std::string& item : items) {
    if (!empty && line.size() + gap.size() + item.size() > kTerminalWidth) {
      out += line + "\n";
      line = std::string(first.size(), ' ');
      empty = true;
    }
    line += (empty ? "" : gap) + item;
    empty = false;
  }
  return out + line + "\n";
}
}  // namespace

void print_trace(const Stage& stage, const std::vector<TraceRecord>& trace, const std::vector<float>& input) {
  const unsigned threads = single_block_threads(input.size());
  std::printf("Trace recorded on the GPU by the counting build of %s, n = %zu, %s:\n", stage.id, input.size(),
              count_of(threads, "thread").c_str());
  std::printf("%s", wrap_text(std::string("(") + stage.trace_legend + "; '#' marks a thread that adds, '|' separates "
                              "warps)", "  ", "   ").c_str());
  std::vector<double> values(input.begin(), input.end());
  std::size_t first = 0;
  while (first < trace.size()) {
    const unsigned step = trace[first].step;
    std::size_t last = first;
    while (last < trace.size() && trace[last].step == step) ++last;
    std::string lanes(threads, '.');
    for (std::size_t k = first; k < last; ++k) lanes[trace[k].thread] = '#';
    for (std::size_t w = (threads - 1) / 32; w >= 1; --w) lanes.insert(w * 32, "|");
    std::printf("  step %u: %s  %s\n", step, count_of(static_cast<long long>(last - first), "thread").c_str(),
                lanes.c_str());
    std::vector<std::string> adds;
    for (std::size_t k = first; k < last; ++k) {
      adds.push_back("t" + std::to_string(trace[k].thread) + ": [" + std::to_string(trace[k].dst) + "]+=[" +
                     std::to_string(trace[k].src) + "]");
      if (stage.in_place)
        values[static_cast<std::size_t>(trace[k].dst)] += values[static_cast<std::size_t>(trace[k].src)];
    }
    std::printf("%s", flow(adds, "          ", "  ").c_str());
    if (stage.in_place) {
      std::vector<std::string> shown;
      for (double v : values) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v);
        shown.push_back(text);
      }
      std::printf("%s", flow(shown, "          input after the step: ", " ").c_str());
    }
    first = last;
  }
  if (stage.in_place && !values.empty())
    std::printf("  Replaying the recorded adds on the CPU leaves input[0] = %g, the reduction's result.\n", values[0]);
}

}  // namespace pmpp::ch10
