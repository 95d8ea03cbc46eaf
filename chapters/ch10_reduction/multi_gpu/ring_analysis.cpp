// The analysis the multi-GPU programs print before any GPU work (and alone with --analysis): the
// ring's schedule step by step, what each GPU sends for each vector size, and where each byte goes in
// either ring. Everything here follows from the rank count and the sizes; nothing needs a GPU.
#include <cstdio>
#include <iostream>

#include "ch10_reduction/multi_gpu/session_parts.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
using detail::format_bytes;

constexpr int kMaxScheduleRanks = 8;  // wider schedules do not fit 100 columns

Table schedule_table(int p) {
  const RingPlan plan = plan_ring(std::size_t{1} << 20, p);
  std::vector<std::string> columns = {"step", "phase"};
  for (int r = 0; r < p; ++r) columns.push_back("rank " + std::to_string(r));
  Table t(columns);
  for (int step = 0; step < plan.steps(); ++step) {
    std::vector<Cell> row = {std::to_string(step + 1), plan.reduces(step) ? "reduce-scatter" : "all-gather"};
    for (int r = 0; r < p; ++r) row.push_back("sends " + std::to_string(plan.send_segment(r, step)));
    t.add_row(row);
  }
  t.add_note("At every step each rank sends one segment (1/p of the vector) to rank + 1 (mod p) and receives one "
             "from rank - 1.");
  t.add_note("Reduce-scatter: the receiver adds it into its own copy and sends the result on at the next step; after "
             "p-1 steps rank r holds the whole sum of segment r+1.");
  t.add_note("All-gather: the receiver overwrites its copy with the finished segment and passes it on.");
  t.add_note("Each step is cut into pieces, so that one piece crosses the link while the one before is being added.");
  return t;
}

Table traffic_table(const SessionOptions& o, int p) {
  Table t({"vector", "segment", "sent per GPU", "copy-engine ring: messages per step", "copy-engine ring: message",
           "copy-engine ring: staging"});
  for (std::size_t bytes : o.all_reduce_bytes()) {
    const RingPlan plan = plan_ring(bytes / sizeof(float), p, o.ring_options().chunk_elements, o.slots);
    t.add_row({format_bytes(bytes), format_bytes(plan.segment_elements * sizeof(float)),
               format_bytes(static_cast<std::size_t>(ring_bytes_per_rank(static_cast<double>(bytes), p))),
               std::to_string(plan.chunks), format_bytes(plan.chunk_elements * sizeof(float)),
               format_bytes(plan.staging_elements() * sizeof(float))});
  }
  t.add_note("Each GPU sends 2(p-1)/p of the vector, and receives as much: p-1 segments in each phase. The total "
             "does not grow with p: more GPUs mean more, smaller steps. So the time is about 2(p-1)/p * vector / "
             "link bandwidth, whatever p is, as long as every link runs at full speed at once.");
  t.add_note("The fused ring cuts each segment into smaller pieces, one or more for each block of its kernel; how "
             "many blocks depends on the GPU, so the runs print its pieces.");
  return t;
}

Table bytes_table(int p) {
  Table t({"ring", "step", "link out", "link in", "DRAM read", "DRAM written", "DRAM per link byte"});
  for (RingKind ring : {RingKind::copy_engine, RingKind::fused}) {
    for (bool reduces : {true, false}) {
      const StepBytes b = step_bytes(ring, reduces);
      t.add_row({ring == RingKind::copy_engine ? "copy-engine" : "fused", reduces ? "reduce-scatter" : "all-gather",
                 Cell::num(b.link_out, 0), Cell::num(b.link_in, 0), Cell::num(b.dram_read, 0),
                 Cell::num(b.dram_write, 0), Cell::num(b.dram() / b.link_out, 1)});
    }
  }
  t.add_note("Bytes one GPU moves for each float it sends (and receives) in one step, counting every DRAM access "
             "as if nothing stayed in L2.");
  t.add_note("Copy-engine ring, reduce-scatter: the copy reads the piece and writes it into the receiver's "
             "staging; the add kernel then reads it back with the receiver's own copy and writes the sum. "
             "Fused ring: the kernel reads its own copy and the piece its left neighbour pushed into its "
             "staging, and stores the sum into its right neighbour's staging: the add happens on the way "
             "out, with no second pass, and only stores cross the link.");
  char line[300];
  std::snprintf(line, sizeof line,
                "Over a whole all-reduce of %d ranks, per float of the vector: %.3g bytes of DRAM for the "
                "copy-engine ring, %.3g for the fused ring (whose step that finishes a segment writes it "
                "twice), against %.3g bytes over each link each way.",
                p, all_reduce_dram_bytes_per_float(RingKind::copy_engine, p),
                all_reduce_dram_bytes_per_float(RingKind::fused, p), ring_bytes_per_rank(4.0, p));
  t.add_note(line);
  t.add_note("Besides its bytes, every step costs a fixed time: a copy, an event and a launch per message in the "
             "copy-engine ring, a flag's trip over the link in the fused ring. For small vectors (below about "
             "32 MiB on NVLink) these 2(p-1) steps, not the link's bandwidth, set the time.");
  return t;
}
}  // namespace

void print_analysis(const SessionOptions& o, int ranks, const std::string& whose, RunRecord& record) {
  if (!o.runs_all_reduce()) return;
  std::printf("%s", wrap_text("The ring all-reduce over " + count_of(ranks, "rank") + " (" + whose + "):").c_str());
  if (ranks < 2) {
    std::printf("  one rank: the all-reduce has nothing to send.\n\n");
    return;
  }
  if (ranks <= kMaxScheduleRanks) {
    const Table schedule = schedule_table(ranks);
    schedule.print(std::cout);
    record.add("schedule", "The ring's schedule, step by step", schedule);
  } else {
    std::printf("  (the step-by-step schedule is shown for up to %d ranks)\n", kMaxScheduleRanks);
  }
  std::printf("\nWhat each GPU sends, for the vector sizes of this run:\n");
  const Table traffic = traffic_table(o, ranks);
  traffic.print(std::cout);
  record.add("traffic", "What each GPU sends", traffic);
  std::printf("\nWhere each byte goes, in either ring:\n");
  const Table bytes = bytes_table(ranks);
  bytes.print(std::cout);
  record.add("bytes", "Where each byte goes, in either ring", bytes);
  std::printf("\n");
}

std::string problem_in_words(const SessionOptions& o, const std::string& ranks_text) {
  std::string words;
  if (o.runs_sum()) words += "sum of " + std::to_string(o.n) + " floats";
  if (o.runs_all_reduce())
    words += std::string(words.empty() ? "" : ", ") + "all-reduce of " + std::to_string(o.min_mib) + " MiB to " +
             std::to_string(o.max_mib) + " MiB";
  return words + ", " + ranks_text;
}

}  // namespace pmpp::ch10::multi_gpu
