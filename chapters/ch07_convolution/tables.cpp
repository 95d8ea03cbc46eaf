// The chapter-7 programs' tables (see runner.hpp): the text's analysis, the profiler's predictions, the
// measurements next to the device's floors, and the sweep. Each fits 100 columns by design.
#include <algorithm>
#include <cmath>
#include <string>

#include "ch07_convolution/runner.hpp"

namespace pmpp::ch07 {

namespace {
std::string dims(Dim3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y); }
Cell tile_cell(int tile) { return tile ? Cell::num(tile, 0) : Cell::none(); }
Cell text_or_none(const std::string& text) { return text.empty() ? Cell::none() : Cell{text}; }
const char* const kCopyOnceNote =
    "limit: copy once = a cudaMemcpy of the input image into the output, device to device, timed the same way: "
    "the DRAM floor's 8 B/pixel at what this GPU's DRAM delivers in practice (measured). A stage that must read "
    "and write every pixel does well to match it.";
}  // namespace

// ---- The text's analysis --------------------------------------------------------------------------

Table intensity_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "text model OP/B", "DRAM-read OP/B", "why they differ"});
  // Loads only, as the text counts: each pixel read from DRAM once, 4 bytes.
  const double dram = flops(o.width, o.height, o.radius) / (0.5 * compulsory_bytes(o.width, o.height));
  for (const Stage* s : list)
    t.add_row({s->id, Cell::num(s->text_op_per_byte(o.radius, o.tile), 2), Cell::num(dram, 2), s->model_note});
  for (const Stage* s : list)  // the work a tensor-core stage does beyond the useful FMAs, on any GPU
    if (s->tensor_flops != nullptr && o.radius >= TENSOR_MIN_RADIUS) {
      const int steps = tensor_k_steps(o.radius), d = filter_dim(o.radius);
      t.add_note(std::string(s->id) + ": " + std::to_string(d) + " filter rows x " + std::to_string(steps) +
                 " k-steps x " + std::to_string(TF32_PRODUCTS) + " products = " +
                 std::to_string(d * steps * TF32_PRODUCTS) + " products of 8 input columns by an 8 x 8 "
                 "Toeplitz block per 8 outputs; " +
                 fixed(100.0 * tensor_core_useful_share(o.radius), 0) + "% of their multiply-adds are the "
                 "convolution's (" + std::to_string(d) + " taps of " + std::to_string(MMA_K * steps) +
                 " columns, 1 product of 3).");
    }
  t.add_note("text model: operations per byte loaded from global memory as sections 7.2-7.5 count them.");
  t.add_note("DRAM-read: operations per byte when DRAM delivers each pixel once (caches catch every re-read), "
             "counting loads only, like the model. It equals the text's bound for an infinitely large tile, "
             "(2r+1)^2 / 2.");
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

Table profile_table(const std::vector<const Stage*>& list, const Options& o) {
  Table t({"stage", "tile", "flops", "compulsory read B", "compulsory write B", "text model OP/B",
           "DRAM-read OP/B", "sectors per request", "threads per warp", "bank conflicts", "shared access",
           "constant cache", "note"});
  const double ops = flops(o.width, o.height, o.radius), bytes = compulsory_bytes(o.width, o.height);
  for (const Stage* s : list) {
    const int tile = effective_tile(*s, o.tile);
    const CounterPrediction p = s->predict_counters({nullptr, nullptr, nullptr, o.width, o.height, o.radius, tile});
    const std::string note = std::string(s->model_note) + (p.note.empty() ? "" : "; " + p.note);
    t.add_row({s->id, tile_cell(tile), Cell::num(ops, 0), Cell::num(bytes / 2, 0), Cell::num(bytes / 2, 0),
               Cell::num(s->text_op_per_byte(o.radius, tile), 2), Cell::num(ops / (bytes / 2), 2),
               p.sectors_per_request > 0 ? Cell{fixed(p.sectors_per_request, 2)} : Cell::none(),
               p.threads_per_warp > 0 ? Cell::num(p.threads_per_warp, 2) : Cell::none(),
               Cell::num(p.bank_conflicts, 0), text_or_none(p.shared_access), text_or_none(p.constant_cache), note});
  }
  t.add_note("sectors per request and threads per warp: a warp in the middle of the image, replayed as the "
             "stage's code indexes; warps on the image's border touch less.");
  t.add_note("bank conflicts: what the access pattern causes; Nsight Compute also counts wavefronts that "
             "the pattern does not explain.");
  return t;
}

// ---- The measurements -----------------------------------------------------------------------------

Table launch_table(const std::vector<Measurement>& runs) {
  Table t({"stage", "tile", "grid", "block", "smem B"});
  for (const Measurement& r : runs) {
    if (!r.config) continue;  // the library chooses its own launches; a failed stage was not timed
    t.add_row({r.name, tile_cell(r.tile), dims(r.config->grid), dims(r.config->block),
               Cell::num(static_cast<double>(r.config->shared_bytes), 0)});
  }
  t.add_note("smem B: shared memory per block, in bytes.");
  return t;
}

Table results_table(const std::vector<Measurement>& runs, const Options& o, const DeviceInfo& device,
                    const Timing* copy_once) {
  std::vector<const Measurement*> libraries;  // each library that passed gets a "vs" column
  for (const auto& r : runs)
    if (r.stage == nullptr && r.passed) libraries.push_back(&r);
  const std::string first = runs.empty() ? "" : runs.front().name;
  std::vector<std::string> columns{"stage", "check", "median ms", "GB/s", "% of floor", "GFLOP/s", "vs " + first};
  for (const Measurement* library : libraries) columns.push_back("vs " + library->name);
  Table t(columns);

  const double bytes = compulsory_bytes(o.width, o.height);
  const double ops = flops(o.width, o.height, o.radius);
  const double first_ms = runs.empty() || !runs.front().passed ? 0 : runs.front().timing.median_ms;
  const Floors f = floors(o, device);
  for (const auto& r : runs) {
    if (!r.passed) {  // no performance for a run that computed the wrong thing, or did not run
      t.add_row({r.name, r.status});
    } else {
      const double ms = r.timing.median_ms;
      std::vector<Cell> cells{r.name,
                              r.status,
                              Cell::num(ms, 4),
                              Cell::num(gb_per_s(bytes, ms), 0),
                              Cell::num(100.0 * f.dram_ms / ms, 1),
                              Cell::num(gflop_per_s(ops, ms), 0),
                              first_ms > 0 ? Cell::num(first_ms / ms, 2) : Cell::none()};
      for (const Measurement* library : libraries) cells.push_back(Cell::num(library->timing.median_ms / ms, 2));
      t.add_row(cells);
    }
    if (!r.why.empty()) t.add_note(r.why);  // it names what was skipped
  }
  // The limits as rows of their own: what no kernel can beat on this device. Each shows its time and
  // the peak rate it comes from; no other cell would describe anything measured.
  if (f.dram_ms > 0)
    t.add_row({"limit: DRAM floor", Cell::none(), Cell::num(f.dram_ms, 4), Cell::num(gb_per_s(bytes, f.dram_ms), 0)});
  // The floor assumes the data sheet's bandwidth, which no kernel gets; the copy shows what a pass over
  // the same bytes gets, so that a DRAM-bound stage can be judged against both.
  const bool copied = copy_once != nullptr && copy_once->median_ms > 0;
  if (copied)
    t.add_row({"limit: copy once", Cell::none(), Cell::num(copy_once->median_ms, 4),
               Cell::num(gb_per_s(bytes, copy_once->median_ms), 0),
               f.dram_ms > 0 ? Cell::num(100.0 * f.dram_ms / copy_once->median_ms, 1) : Cell::none()});
  if (f.fma_ms > 0)
    t.add_row({"limit: FP32 floor", Cell::none(), Cell::num(f.fma_ms, 4), Cell::none(), Cell::none(),
               Cell::num(gflop_per_s(ops, f.fma_ms), 0)});
  // A stage on tensor cores has a floor of its own: its products at their peak. Stages that issue the
  // same products share one row.
  std::string tensor_note, tensor_names;
  double tensor_ops = 0;
  for (const auto& r : runs) {
    if (!r.passed || r.stage == nullptr || r.stage->tensor_flops == nullptr || f.tf32_tflops <= 0) continue;
    const double stage_ops = r.stage->tensor_flops(o.width, o.height, o.radius);
    if (stage_ops != tensor_ops && !tensor_names.empty()) {
      t.add_note(tensor_note);
      tensor_names.clear();
    }
    tensor_ops = stage_ops;
    const double ms = tensor_ops / (f.tf32_tflops * 1e9);
    if (tensor_names.empty())
      t.add_row({"limit: tensor floor", Cell::none(), Cell::num(ms, 4), Cell::none(), Cell::none(),
                 Cell::num(gflop_per_s(ops, ms), 0)});
    tensor_names += (tensor_names.empty() ? "" : " and ") + r.name;
    tensor_note = "limit: tensor floor = " + tensor_names + "'s " + fixed(tensor_ops / 1e12, 2) +
                  " TFLOP of TF32 products (zeros and the 3xTF32 corrections included) at the dense TF32 peak " +
                  fixed(f.tf32_tflops, 0) + " TFLOP/s = " + fixed(ms, 4) + " ms; its GFLOP/s counts the useful "
                  "FMAs only.";
  }
  t.add_note("limit: DRAM floor = the compulsory 8 B/pixel (each pixel read once, written once) at peak DRAM " +
             fixed(device.peak_dram_gbps, 0) + " GB/s = " + fixed(f.dram_ms, 4) + " ms.");
  if (copied) t.add_note(kCopyOnceNote);
  if (f.fma_ms > 0)
    t.add_note("limit: FP32 floor = " + std::to_string(filter_dim(o.radius) * filter_dim(o.radius)) +
               " FMAs/pixel at " + fixed(f.fp32_tflops, 1) + " TFLOP/s (" + std::to_string(device.sm_count) +
               " SMs at the peak clock) = " + fixed(f.fma_ms, 4) + " ms.");
  if (!tensor_note.empty()) t.add_note(tensor_note);
  t.add_note("GB/s counts the compulsory bytes; '% of floor' = DRAM floor / time, the same as GB/s over peak "
             "DRAM GB/s.");
  t.add_note("'vs X' = X's time / this row's time: above 1 is faster than X.");
  return t;
}

std::vector<std::string> explain_times(const std::vector<Measurement>& runs, const Options& o,
                                       const DeviceInfo& device) {
  const Stage& first_stage = stages().front();
  const Measurement* first = nullptr;
  for (const auto& r : runs)
    if (r.stage == &first_stage && r.passed) first = &r;
  std::vector<std::string> lines{"Why each stage is as fast as it is on this device (from the times above):"};
  if (first == nullptr) {
    lines.push_back(std::string("- ") + first_stage.id + " did not pass, so there is nothing to compare against.");
    return lines;
  }
  const double bytes = compulsory_bytes(o.width, o.height);
  if (bytes <= static_cast<double>(device.l2_bytes)) {
    lines.push_back("- the whole problem (" + fixed(bytes / 1048576.0, 1) + " MiB in and out) fits in the " +
                    fixed(device.l2_bytes / 1048576.0, 0) +
                    " MiB L2: these times measure launch overhead and caches, not DRAM. Run at the default "
                    "8192 x 8192 for a comparison that means something.");
    return lines;
  }
  const Floors f = floors(o, device);
  for (const Measurement& r : runs) {
    if (r.stage == nullptr || !r.passed || r.stage->explain == nullptr) continue;
    Observed seen;
    seen.width = o.width, seen.height = o.height, seen.radius = o.radius, seen.tile = r.tile;
    seen.ms = r.timing.median_ms, seen.first_ms = first->timing.median_ms, seen.first_id = first_stage.id;
    seen.dram_floor_ms = f.dram_ms, seen.fp32_floor_ms = f.fma_ms;
    if (r.stage->tensor_flops != nullptr && f.tf32_tflops > 0)
      seen.tensor_floor_ms = r.stage->tensor_flops(o.width, o.height, o.radius) / (f.tf32_tflops * 1e9);
    seen.peak_dram_gbps = device.peak_dram_gbps, seen.l2_mib = device.l2_bytes / 1048576.0;
    std::string line = std::string("- ") + r.name + ": ";
    if (r.stage != &first_stage) {
      const double speedup = std::round(100.0 * seen.first_ms / seen.ms) / 100.0;  // as printed
      line += fixed(speedup, 2) + "x, " +
              (speedup > 1.05 ? "faster than " : speedup < 0.95 ? "slower than " : "about as fast as ") +
              first_stage.id + ". ";
    }
    lines.push_back(line + r.stage->explain(seen));
  }
  lines.push_back("The text's OP/B counts global-memory requests; on a GPU whose caches turn the re-reads into "
                  "L1/L2 hits, DRAM traffic is near 8 B/pixel for every stage and the instructions per output "
                  "decide.");
  return lines;
}

// ---- The sweep ------------------------------------------------------------------------------------

Table sweep_table(const std::vector<SweepRow>& rows, const DeviceInfo& device, const Timing* copy_once) {
  // Short headers, and the DRAM floor (the same at every radius) in a note: with a column per stage the
  // table must still fit a page's width.
  std::vector<std::string> columns{"radius", "filter", "FP32 floor", "bound"};
  const std::size_t swept = rows.empty() ? 0 : rows.front().runs.size();
  if (!rows.empty())
    for (const Measurement& m : rows.front().runs)  // "05 ms": the stage's number keeps the table narrow
      columns.push_back(m.name.substr(0, m.name.find('_')) + " ms");
  if (swept > 1) columns.push_back("best");  // with one stage, the best is that stage
  columns.push_back("% of floor");
  std::vector<std::string> libraries;
  if (!rows.empty())
    for (const Measurement& m : rows.front().libraries) libraries.push_back(m.name);
  for (const std::string& name : libraries) columns.push_back(name + " ms");
  for (const std::string& name : libraries) columns.push_back("vs " + name);
  Table t(columns);
  for (const SweepRow& row : rows) {
    const int d = filter_dim(row.radius);
    const double floor_ms = std::max(row.floors.dram_ms, row.floors.fma_ms);
    std::vector<Cell> cells{std::to_string(row.radius), std::to_string(d) + "x" + std::to_string(d),
                            Cell::num(row.floors.fma_ms, 4), row.floors.fma_ms > row.floors.dram_ms ? "FP32" : "DRAM"};
    const Measurement* best = nullptr;
    for (const Measurement& m : row.runs) {
      cells.push_back(m.passed ? Cell::num(m.timing.median_ms, 4) : Cell{m.status});
      if (m.passed && (best == nullptr || m.timing.median_ms < best->timing.median_ms)) best = &m;
    }
    if (swept > 1) cells.push_back(best != nullptr ? Cell{best->name} : Cell::none());
    cells.push_back(best != nullptr ? Cell::num(100.0 * floor_ms / best->timing.median_ms, 1) : Cell::none());
    for (const Measurement& m : row.libraries)  // a library that did not run shows why: skipped or FAIL
      cells.push_back(m.passed ? Cell::num(m.timing.median_ms, 4) : Cell{m.status});
    for (const Measurement& m : row.libraries)
      cells.push_back(m.passed && best != nullptr ? Cell::num(m.timing.median_ms / best->timing.median_ms, 2)
                                                  : Cell::none());
    t.add_row(cells);
  }
  t.add_note("FP32 floor, in ms: (2r+1)^2 FMAs/pixel at " +
             fixed(rows.empty() ? 0.0 : rows.front().floors.fp32_tflops, 1) + " TFLOP/s (" +
             std::to_string(device.sm_count) + " SMs at the peak clock). DRAM floor: " +
             fixed(rows.empty() ? 0.0 : rows.front().floors.dram_ms, 4) + " ms at every radius (8 B/pixel at " +
             fixed(device.peak_dram_gbps, 0) + " GB/s). bound: the higher of the two.");
  if (copy_once != nullptr && copy_once->median_ms > 0 && !rows.empty() && rows.front().floors.dram_ms > 0)
    t.add_note("copy once: a cudaMemcpy of the image, device to device, timed the same way, took " +
               fixed(copy_once->median_ms, 4) + " ms, " +
               fixed(100.0 * rows.front().floors.dram_ms / copy_once->median_ms, 1) +
               "% of the DRAM floor: what this GPU's DRAM delivers in practice. Where DRAM is the bound, "
               "compare the best stage's '% of floor' with it.");
  if (!rows.empty())
    for (const Measurement& m : rows.front().runs)
      t.add_note(m.name.substr(0, m.name.find('_')) + " ms: the median time of " + m.name + ".");
  for (const std::string& name : libraries)
    t.add_note(name + " ms: the median time of " + name + "; vs " + name +
               ": that time / the best stage's (above 1, the stage is faster).");
  t.add_note(std::string(swept > 1 ? "'% of floor' = the higher floor / the best stage's time" :
                                     "'% of floor' = the higher floor / the stage's time") +
             ": 100 is the limit for FP32 FMAs; a stage on tensor cores can pass it where FP32 is the higher floor.");
  return t;
}

}  // namespace pmpp::ch07
