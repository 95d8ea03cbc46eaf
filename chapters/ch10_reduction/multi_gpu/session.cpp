// The body of the multi-GPU programs (see session.hpp): written once against Team, so one process
// driving every GPU and one process per GPU under mpirun run the same checks, timings and tables.
#include "ch10_reduction/multi_gpu/session.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <set>
#include <stdexcept>
#include <utility>

#include "pmpp/check.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/report.hpp"

namespace pmpp::ch10::multi_gpu {

// ---- Options -----------------------------------------------------------------------------------------

std::vector<std::size_t> SessionOptions::all_reduce_bytes() const {
  std::vector<std::size_t> sizes;
  for (std::size_t mib = static_cast<std::size_t>(min_mib); mib <= static_cast<std::size_t>(max_mib); mib *= 2)
    sizes.push_back(mib << 20);
  return sizes;
}

std::size_t SessionOptions::capacity() const {
  return runs_all_reduce() ? all_reduce_bytes().back() / sizeof(float) : 0;
}

RingOptions SessionOptions::ring_options() const {
  return {static_cast<std::size_t>(chunk_kib) * 1024 / sizeof(float), slots};
}

void add_options(Cli& cli, SessionOptions& o, bool one_process) {
  cli.option("--part", o.part, "what to run: the sum across GPUs, the all-reduce, or both", {"all", "sum", "all-reduce"})
      .option("--n", o.n, "floats the sum across GPUs adds (stage 06 on one GPU adds them too, for comparison)", 1,
              std::int64_t{1} << 36)
      .option("--inputs", o.inputs,
              "exact: small integers, whose sums are exact in any order (checked bit for bit); floats: random "
              "floats, checked against the rounding-error bound",
              {"exact", "floats"})
      .option("--seed", o.seed, "seed of the inputs", 0, INT64_MAX)
      .option("--min-mib", o.min_mib, "smallest all-reduce vector, in MiB; the sizes double up to --max-mib", 1, 65536)
      .option("--max-mib", o.max_mib, "largest all-reduce vector, in MiB", 1, 65536)
      .option("--chunk-kib", o.chunk_kib, "the ring's message size in KiB (0: about 8 messages per segment)", 0,
              1 << 22)
      .option("--slots", o.slots, "staging slots per rank: messages the ring may have in flight to one rank", 1, 64)
      .option("--reps", o.repetitions, "timed runs, back to back (their average is reported, as the NCCL tests do)",
              1, 1000)
      .flag("--analysis", o.analysis_only, "print the ring's schedule and traffic only (needs no GPU)")
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
  if (one_process)
    cli.option("--gpus", o.gpus, "GPUs to use, from device 0 (0: every GPU)", 0, 1024)
        .option("--ranks-per-gpu", o.ranks_per_gpu,
                "ranks sharing each GPU: above 1, the ring is checked with more ranks than GPUs (NCCL allows one)", 1, 16);
}

void validate(const SessionOptions& o) {
  if (o.min_mib > o.max_mib)
    throw UsageError("--min-mib " + std::to_string(o.min_mib) + " is above --max-mib " + std::to_string(o.max_mib));
}

// ---- The analysis (no GPU) ---------------------------------------------------------------------------------

namespace {
std::string mib(std::size_t bytes) {
  char text[32];
  if (bytes >= (std::size_t{1} << 30) && bytes % (std::size_t{1} << 30) == 0)
    std::snprintf(text, sizeof text, "%zu GiB", bytes >> 30);
  else if (bytes >= (std::size_t{1} << 20))
    std::snprintf(text, sizeof text, "%.4g MiB", static_cast<double>(bytes) / 1048576.0);
  else
    std::snprintf(text, sizeof text, "%.4g KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

constexpr int kMaxScheduleRanks = 8;  // wider schedules do not fit a terminal

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
  t.add_note("Each step is cut into pieces, so that one piece crosses the link while the receiver adds the one before.");
  return t;
}

Table traffic_table(const SessionOptions& o, int p) {
  Table t({"vector", "segment", "messages per step", "message", "sent per GPU", "received per GPU", "staging per GPU"});
  for (std::size_t bytes : o.all_reduce_bytes()) {
    const RingPlan plan = plan_ring(bytes / sizeof(float), p, o.ring_options().chunk_elements, o.slots);
    t.add_row({mib(bytes), mib(plan.segment_elements * sizeof(float)), std::to_string(plan.chunks),
               mib(plan.chunk_elements * sizeof(float)), mib(static_cast<std::size_t>(ring_bytes_per_rank(bytes, p))),
               mib(static_cast<std::size_t>(ring_bytes_per_rank(bytes, p))),
               mib(plan.staging_elements() * sizeof(float))});
  }
  t.add_note("Each GPU sends and receives 2(p-1)/p of the vector: p-1 segments in each phase. The total does not "
             "grow with p: more GPUs mean more, smaller steps. So the time is about 2(p-1)/p * vector / link "
             "bandwidth, whatever p is, as long as every link runs at full speed at once.");
  return t;
}
}  // namespace

void print_analysis(const SessionOptions& o, int ranks, bool planned) {
  if (!o.runs_all_reduce()) return;
  std::printf("The ring all-reduce over %d rank(s)%s:\n", ranks, planned ? " (planned for 4 GPUs: no GPU to count)" : "");
  if (ranks < 2) {
    std::printf("  one rank: the all-reduce has nothing to send.\n\n");
    return;
  }
  if (ranks <= kMaxScheduleRanks) {
    schedule_table(ranks).print(std::cout);
  } else {
    std::printf("  (the step-by-step schedule is shown for up to %d ranks)\n", kMaxScheduleRanks);
  }
  std::printf("\nWhat each GPU sends, for the vector sizes of this run:\n");
  traffic_table(o, ranks).print(std::cout);
  std::printf("\n");
}

// ---- Running on a team ----------------------------------------------------------------------------------

namespace {
constexpr int kWarmup = 3;

void synchronize(Team& team) {
  Ring& ring = team.ring();
  for (int r : ring.local_ranks()) {
    CUDA_CHECK(cudaSetDevice(ring.device(r)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

double slowest(Team& team, double local_value) {
  const std::vector<double> all =
      team.collect(std::vector<double>(team.ring().local_ranks().size(), local_value));
  return *std::max_element(all.begin(), all.end());
}

bool everywhere(Team& team, bool local_ok) { return slowest(team, local_ok ? 0.0 : 1.0) == 0.0; }

//! [time_ms]
// Average over `repetitions` runs enqueued back to back, after warm-up, timed on the host from the
// moment every process is ready until every GPU is done: the way the NCCL performance tests time.
// Work on several GPUs has no single stream to put events on, and back to back the launch costs
// overlap the previous run, as they do in an application.
double time_ms(Team& team, int repetitions, const std::function<void()>& enqueue) {
  for (int i = 0; i < kWarmup; ++i) enqueue();
  synchronize(team);
  team.barrier();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repetitions; ++i) enqueue();
  synchronize(team);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return slowest(team, ms / repetitions);
}
//! [time_ms]

void say(Team& team, const std::string& text) {
  if (team.prints()) std::printf("%s\n", text.c_str());
}

void show(Team& team, const std::string& title, const Table& table) {
  if (!team.prints()) return;
  std::printf("%s\n", title.c_str());
  table.print(std::cout);
  std::printf("\n");
}

// The problem in words for the run record's captions: "sum of 268435456 floats, all-reduce of 8 MiB to
// 256 MiB, 2 ranks: one process driving 2 GPU(s)". How the ranks were started is part of it, so that
// the two launch modes' records of the same sizes have captions of their own.
std::string problem_in_words(const SessionOptions& o, Team& team) {
  std::string words;
  if (o.runs_sum()) words += "sum of " + std::to_string(o.n) + " floats";
  if (o.runs_all_reduce())
    words += std::string(words.empty() ? "" : ", ") + "all-reduce of " + std::to_string(o.min_mib) + " MiB to " +
             std::to_string(o.max_mib) + " MiB";
  return words + ", " + std::to_string(team.ranks()) + " ranks: " + team.description();
}

// "2 x NVIDIA H100 80GB HBM3", or "NVIDIA H100 80GB HBM3 (3 ranks on 1 GPU)": the device field of the record.
std::string devices_text(Team& team) {
  std::set<int> distinct;
  std::set<std::string> names;
  for (int r = 0; r < team.ranks(); ++r) distinct.insert(team.device_of(r));
  for (int d : distinct) names.insert(query_device(d).name);
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : " + ") + name;
  if (static_cast<int>(distinct.size()) < team.ranks())
    return text + " (" + std::to_string(team.ranks()) + " ranks on " + std::to_string(distinct.size()) + " GPU(s))";
  return std::to_string(distinct.size()) + " x " + text;
}

std::vector<float*> local_vectors(Ring& ring) {
  std::vector<float*> vectors;
  for (int r : ring.local_ranks()) vectors.push_back(ring.vector(r));
  return vectors;
}

// ---- The sum across GPUs ------------------------------------------------------------------------------------

// One rank's part of the sum: its shard of the input, stage 06's scratch, and its partial sum, which
// NCCL then turns into the total in place.
struct Shard {
  int rank = 0, device = 0;
  std::size_t count = 0;
  DeviceBuffer<float> input, partial;
  DeviceBuffer<unsigned char> scratch;
  LaunchConfig config;

  Shard(int rank_, int device_, const float* host, std::size_t count_, const Stage& stage)
      : rank(rank_), device(device_), count(count_) {
    CUDA_CHECK(cudaSetDevice(device));
    input = DeviceBuffer<float>(count);
    input.copy_from(host, count);
    partial = DeviceBuffer<float>(1);
    partial.poison();  // NaN until stage 06 and NCCL write it
    scratch = DeviceBuffer<unsigned char>(std::max<std::size_t>(1, stage.scratch_bytes(count, Op::sum)));
    CUDA_CHECK(cudaMemset(scratch.data(), 0, scratch.bytes()));  // once: stage 06 leaves it zeroed
  }
  void launch(const Stage& stage) {
    CUDA_CHECK(cudaSetDevice(device));
    config = stage.launch({input.data(), partial.data(), count, Op::sum, scratch.data(), nullptr});
  }
  float result() const {
    CUDA_CHECK(cudaSetDevice(device));
    return partial.to_host()[0];  // a copy on the default stream: it waits for the all-reduce
  }
};

bool run_sum(Team& team, const SessionOptions& o, RunRecord& record) {
  const int p = team.ranks();
  say(team, "== The sum across GPUs: " + std::to_string(o.n) + " floats, a shard per rank ==");
  if (!team.has_nccl()) {
    say(team, "skipped: the partial sums are combined with NCCL, and " + team.nccl_status() + "\n");
    return true;
  }
  const Stage* stage = find_stage("06_single_pass_float4");
  if (stage == nullptr) throw std::logic_error("chapter 10's stage 06 is not in the stage table");

  const InputKind kind = o.exact() ? InputKind::exact : InputKind::floats;
  const std::vector<float> x = make_inputs(o.n, Op::sum, kind, o.seed);
  const double want = reduce_reference(x, Op::sum);
  const bool exact = sum_is_exact_in_float(x);
  const double magnitude = sum_of_magnitudes(x);
  say(team, "inputs: " + describe_inputs(o.n, Op::sum, kind));

  // Shards as the ring cuts segments: 256-byte aligned, balanced to within 64 floats.
  const RingPlan cut = plan_ring(o.n, p);
  std::vector<std::unique_ptr<Shard>> shards;
  std::vector<float*> partials;
  for (int r : team.ring().local_ranks()) {
    const Range range = cut.segment(r);
    shards.push_back(std::make_unique<Shard>(r, team.device_of(r), x.data() + range.begin, range.size(), *stage));
    partials.push_back(shards.back()->partial.data());
  }
  //! [sum_across_gpus]
  const auto sum_across = [&] {
    for (auto& shard : shards) shard->launch(*stage);  // every GPU adds its shard at the same time
    team.nccl_all_reduce(partials, 1);                   // then p floats cross the links, once
  };
  //! [sum_across_gpus]
  sum_across();
  std::size_t depth = 0;
  for (auto& shard : shards) depth = std::max(depth, shard->config.rounding_depth);
  // Each partial sum then goes through at most p-1 more roundings inside NCCL.
  depth = static_cast<std::size_t>(slowest(team, static_cast<double>(depth))) + static_cast<std::size_t>(p - 1);
  const Tolerance tolerance = exact ? Tolerance::exact() : Tolerance{sum_error_bound(depth, magnitude), 0};
  bool local_ok = true;
  for (auto& shard : shards) {
    const float got = shard->result();
    if (!within(got, want, tolerance) && local_ok) {
      std::printf("sum across GPUs: FAIL on rank %d: got %.9g, want %.9g\n", shard->rank, got, want);
      local_ok = false;
    }
  }
  const bool ok = everywhere(team, local_ok);
  char line[200];
  std::snprintf(line, sizeof line, "check (every rank): %s, want %.9g%s", ok ? "PASS" : "FAIL", want,
                exact ? " (exact: bit for bit)" : " (within the rounding bound)");
  say(team, line);

  // One GPU's stage 06 over the whole input, on rank 0's GPU, if it fits there beside the shard.
  enum WholeRun { kDoesNotFit = 0, kPassed = 1, kFailed = 2 };
  std::unique_ptr<Shard> whole;
  int local_state = kDoesNotFit;
  if (team.ring().local_ranks().front() == 0) {
    CUDA_CHECK(cudaSetDevice(team.device_of(0)));
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (o.n * sizeof(float) + (std::size_t{256} << 20) < free_bytes) {
      whole = std::make_unique<Shard>(0, team.device_of(0), x.data(), o.n, *stage);
      whole->launch(*stage);
      const Tolerance one =
          exact ? Tolerance::exact() : Tolerance{sum_error_bound(whole->config.rounding_depth, magnitude), 0};
      local_state = within(whole->result(), want, one) ? kPassed : kFailed;
    }
  }
  // Rank 0's outcome, known to every process (collect lists the ranks in order).
  const int whole_state = static_cast<int>(
      team.collect(std::vector<double>(team.ring().local_ranks().size(), static_cast<double>(local_state)))[0]);

  Table t({"run", "GPUs", "check", "ms", "GB/s", "x one GPU"});
  const double bytes = static_cast<double>(o.n) * sizeof(float);
  double one_ms = 0;
  if (whole_state == kPassed) {
    one_ms = time_ms(team, o.repetitions, [&] {
      if (whole) whole->launch(*stage);
    });
    t.add_row({"stage 06 on one GPU", "1", "PASS", Cell::num(one_ms, 4), Cell::num(bytes / one_ms / 1e6, 0), "1.00"});
  } else {
    t.add_row({"stage 06 on one GPU", "1", whole_state == kFailed ? "FAIL" : "-"});
    if (whole_state == kDoesNotFit)
      t.add_note("The input does not fit on one GPU beside its shard: no one-GPU run to compare with.");
  }
  if (ok) {
    const double many_ms = time_ms(team, o.repetitions, sum_across);
    const double nccl_ms = time_ms(team, o.repetitions, [&] { team.nccl_all_reduce(partials, 1); });
    t.add_row({"stage 06 per shard + NCCL all-reduce of the partial sums", std::to_string(p), "PASS",
               Cell::num(many_ms, 4), Cell::num(bytes / many_ms / 1e6, 0),
               one_ms > 0 ? Cell::num(one_ms / many_ms, 2) : Cell::none()});
    t.add_row({"  of which: NCCL all-reduce of one float per GPU, alone", std::to_string(p), "-", Cell::num(nccl_ms, 4)});
  } else {
    t.add_row({"stage 06 per shard + NCCL all-reduce of the partial sums", std::to_string(p), "FAIL"});
  }
  t.add_note("GB/s: the input's bytes over the time. Each GPU reads only its shard, all at once, so the ideal is " +
             std::to_string(p) + " times one GPU's rate; what stops short of it is the last step, an all-reduce of " +
             std::to_string(p) + " floats, which costs NCCL's latency, not bandwidth.");
  t.add_note("Times: average of --reps runs back to back, host clock.");
  show(team, "", t);
  record.add("sum", "The sum across GPUs against one GPU", t);
  return ok && whole_state != kFailed;
}

// ---- The links and the all-reduce ----------------------------------------------------------------------------

Table links_table(Team& team, const LinkBandwidth& measured, std::size_t bytes, double& ring_gbps) {
  const std::vector<double> alone = team.collect(measured.alone), together = team.collect(measured.together);
  ring_gbps = *std::min_element(together.begin(), together.end());
  Table t({"link", "GPUs", "what CUDA reports", "alone GB/s", "all at once GB/s"});
  const int p = team.ranks();
  for (int r = 0; r < p; ++r) {
    const int from = team.device_of(r), to = team.device_of((r + 1) % p);
    t.add_row({"rank " + std::to_string(r) + " -> " + std::to_string((r + 1) % p),
               std::to_string(from) + " -> " + std::to_string(to), query_link(from, to).describe(),
               Cell::num(alone[static_cast<std::size_t>(r)], 0), Cell::num(together[static_cast<std::size_t>(r)], 0)});
  }
  t.add_note("Measured with the ring's own copies (cudaMemcpyAsync of " + mib(bytes) +
             " into the right neighbour's vector): alone, one link at a time; all at once, every rank sending while "
             "it receives, as in the ring.");
  t.add_note("The slowest link all at once bounds a ring: the predictions below use it.");
  return t;
}

bool run_all_reduce(Team& team, const SessionOptions& o, RunRecord& record) {
  const int p = team.ranks();
  say(team, "== The all-reduce: every rank ends with the element-wise sum ==");
  if (p < 2) {
    say(team, "one rank: nothing crosses a link, so there is nothing to measure. With one GPU, run");
    say(team, "  ch10_multi_gpu --ranks-per-gpu 2   (or: mpirun -np 2 ch10_multi_gpu_mpi)");
    say(team, "to check the hand-written ring with two ranks on it; NCCL allows one rank per GPU, so only a machine");
    say(team, "with two or more GPUs shows NCCL, the links, and the ring against them.\n");
    return true;
  }
  Ring& ring = team.ring();
  const std::vector<float*> vectors = local_vectors(ring);
  std::set<int> distinct;
  for (int r = 0; r < p; ++r) distinct.insert(team.device_of(r));
  const bool shared = static_cast<int>(distinct.size()) < p;

  const auto fill = [&](std::size_t n) {
    for (int r : ring.local_ranks()) {
      CUDA_CHECK(cudaSetDevice(ring.device(r)));
      fill_inputs(ring.vector(r), n, o.seed + n, r, o.exact());
    }
  };

  const std::size_t link_bytes = std::min(ring.capacity() * sizeof(float), std::size_t{256} << 20);
  fill(ring.capacity());  // the link measurement copies whole vectors: give them values first
  const LinkBandwidth measured = measure_links(ring, link_bytes, 5, [&] { team.barrier(); });
  double link_gbps = 0;
  Table links = links_table(team, measured, link_bytes, link_gbps);
  show(team, "The links of the ring:", links);
  record.add("links", "The links of the ring", links);

  // Every local rank's vector against the CPU's sums; a failure is printed by the process that saw it.
  const auto check = [&](std::size_t n, const char* who) {
    bool ok = true;
    for (int r : ring.local_ranks()) {
      CUDA_CHECK(cudaSetDevice(ring.device(r)));
      const VectorCheck c = check_all_reduced(ring.vector(r), n, o.seed + n, p, o.exact());
      if (!c.ok()) std::printf("%s, %s, rank %d: %s\n", who, mib(n * sizeof(float)).c_str(), r, c.summary().c_str());
      ok = ok && c.ok();
    }
    return everywhere(team, ok);
  };

  Table t({"vector", "ring", "ring ms", "ring busbw GB/s", "NCCL", "NCCL ms", "NCCL busbw GB/s", "ring / NCCL",
           "predicted ms", "ring / predicted"});
  bool all_ok = true;
  for (std::size_t bytes : o.all_reduce_bytes()) {
    const std::size_t n = bytes / sizeof(float);
    fill(n);
    ring.all_reduce(n);
    const bool ring_ok = check(n, "ring");
    bool nccl_ok = true;
    if (team.has_nccl()) {
      fill(n);
      team.nccl_all_reduce(vectors, n);
      nccl_ok = check(n, "NCCL");
    }
    all_ok = all_ok && ring_ok && nccl_ok;
    const double ring_ms = ring_ok ? time_ms(team, o.repetitions, [&] { ring.all_reduce(n); }) : 0;
    const double nccl_ms =
        team.has_nccl() && nccl_ok ? time_ms(team, o.repetitions, [&] { team.nccl_all_reduce(vectors, n); }) : 0;
    const double predicted = predicted_ring_ms(static_cast<double>(bytes), p, link_gbps);
    const auto busbw = [&](double ms) { return bus_bandwidth(algorithm_bandwidth(static_cast<double>(bytes), ms), p); };
    t.add_row({mib(bytes), ring_ok ? "PASS" : "FAIL", ring_ms > 0 ? Cell::num(ring_ms, 4) : Cell::none(),
               ring_ms > 0 ? Cell::num(busbw(ring_ms), 1) : Cell::none(),
               team.has_nccl() ? (nccl_ok ? "PASS" : "FAIL") : "-", nccl_ms > 0 ? Cell::num(nccl_ms, 4) : Cell::none(),
               nccl_ms > 0 ? Cell::num(busbw(nccl_ms), 1) : Cell::none(),
               ring_ms > 0 && nccl_ms > 0 ? Cell::num(nccl_ms / ring_ms, 2) : Cell::none(), Cell::num(predicted, 4),
               ring_ms > 0 ? Cell::num(predicted / ring_ms, 2) : Cell::none()});
  }
  t.add_note("Every element of every rank is checked against the CPU's sum (" +
             std::string(o.exact() ? "small integers: bit for bit" : "random floats: within p-1 roundings") + ").");
  t.add_note("Bandwidths as the NCCL performance tests define them: algbw = vector bytes / time, busbw = algbw * "
             "2(p-1)/p, the rate each GPU's link carried.");
  t.add_note("'ring / NCCL' is NCCL's time over the ring's (> 1: ring faster).");
  char line[200];
  std::snprintf(line, sizeof line, "predicted: 2(p-1)/p * vector / %.0f GB/s, the slowest link all at once, and nothing else.",
                link_gbps);
  t.add_note(line);
  t.add_note("Times: average of --reps all-reduces back to back, host clock, after " + std::to_string(kWarmup) +
             " unmeasured ones.");
  if (shared) t.add_note("Ranks share GPUs here: the 'links' are copies inside one GPU's memory, not NVLink or PCIe.");
  show(team, "The all-reduce, hand-written ring against NCCL (" + team.nccl_status() + "):", t);
  record.add("all_reduce", "The all-reduce, hand-written ring against NCCL", t);
  return all_ok;
}
}  // namespace

int run_session(Team& team, const SessionOptions& o, const std::string& program, const std::string& arguments) {
  say(team, "ranks: " + std::to_string(team.ranks()) + ", " + team.description());
  if (team.prints()) {
    for (int r = 0; r < team.ranks(); ++r) {
      const int d = team.device_of(r);
      std::printf("  rank %d: GPU %d, %s, PCI %s\n", r, d, query_device(d).summary().c_str(), pci_bus_id(d).c_str());
    }
    std::printf("NCCL: %s\n\n", team.nccl_status().c_str());
  }
  // Only the process that prints writes the record.
  RunRecord record(program, arguments, team.prints() ? o.json : std::string());
  record.set_device(devices_text(team));
  record.set_problem(problem_in_words(o, team));
  bool ok = true;
  if (o.runs_sum()) ok = run_sum(team, o, record) && ok;
  if (o.runs_all_reduce()) ok = run_all_reduce(team, o, record) && ok;
  say(team, ok ? "every check passed" : "FAILED: a result differs from the CPU reference (see above)");
  return record.finish(ok ? 0 : 1);
}

}  // namespace pmpp::ch10::multi_gpu
