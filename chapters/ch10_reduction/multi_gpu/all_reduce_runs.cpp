// The all-reduce part of a run: the links measured with the copy-engine ring's own copies, then every
// vector size all-reduced by each contender (the copy-engine ring, the fused ring, NCCL), checked
// element by element on every rank and timed, against the time the links allow.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>

#include "ch10_reduction/multi_gpu/session_parts.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10::multi_gpu::detail {

namespace {
// One way to all-reduce every rank's vector in place; an empty `run` where it cannot run here.
struct Contender {
  std::string name;
  std::function<void(std::size_t)> run;
};

Table links_table(Team& team, const LinkBandwidth& measured, std::size_t bytes, double& ring_gbps) {
  const std::vector<double> alone = team.collect(measured.alone), together = team.collect(measured.together);
  ring_gbps = *std::min_element(together.begin(), together.end());
  Table t({"link", "GPUs", "peer access", "native atomics", "performance rank", "alone GB/s", "all at once GB/s"});
  const int p = team.ranks();
  for (int r = 0; r < p; ++r) {
    const std::size_t i = static_cast<std::size_t>(r);
    const PeerLink link = query_link(team.device_of(r), team.device_of((r + 1) % p));
    const auto yes_no = [&](bool value) { return link.same_device ? "same GPU" : value ? "yes" : "no"; };
    t.add_row({"rank " + std::to_string(r) + " -> " + std::to_string((r + 1) % p),
               std::to_string(link.from) + " -> " + std::to_string(link.to), yes_no(link.peer_access),
               yes_no(link.native_atomics), link.peer_access ? std::to_string(link.performance_rank) : "-",
               Cell::num(alone[i], 0), Cell::num(together[i], 0)});
  }
  t.add_note("What CUDA reports: peer access (direct copies, without host memory), native atomics over the link "
             "(NVLink has them, PCIe peers usually not) and a relative performance rank (lower is faster).");
  t.add_note("Measured with the copy-engine ring's own copies (cudaMemcpyAsync of " + format_bytes(bytes) +
             " into the right neighbour's vector): alone, one link at a time; all at once, every rank sending "
             "while it receives, as in the ring.");
  t.add_note("The slowest link all at once bounds a ring: the predictions below use it.");
  return t;
}

// What the same links give kernels, every rank at once: the fused ring's bytes cross as SM stores.
Table drivers_table(Team& team, const LinkBandwidth& measured, double& stores_gbps) {
  const std::vector<double> together = team.collect(measured.together), loads = team.collect(measured.loads),
                            stores = team.collect(measured.stores);
  stores_gbps = *std::min_element(stores.begin(), stores.end());
  Table t({"link", "copy engine GB/s", "SM loads GB/s", "SM stores GB/s"});
  const int p = team.ranks();
  for (int r = 0; r < p; ++r) {
    const std::size_t i = static_cast<std::size_t>(r);
    t.add_row({"ranks " + std::to_string(r) + ", " + std::to_string((r + 1) % p), Cell::num(together[i], 0),
               Cell::num(loads[i], 0), Cell::num(stores[i], 0)});
  }
  t.add_note("Every rank at once, by three drivers: rank r's copy engine copying into rank r+1's memory; rank "
             "r's SMs loading from rank r+1's memory; rank r's SMs storing into rank r+1's memory, as the fused "
             "ring stores into its neighbour's. A load crosses the link twice, as a request one way and an "
             "answer the other, on links that carry data both ways at once; a store goes once, and nothing "
             "waits for it to land until a flag is released.");
  return t;
}

// Every local rank's first n floats against the CPU's sums, and the same bits on every rank. A failure
// is printed by the process that saw it.
bool check_every_rank(Team& team, const SessionOptions& o, std::size_t n, const std::string& who) {
  Ring& ring = team.ring();
  bool ok = true;
  std::vector<double> high, low;  // each rank's hash of its bits, in two exact halves
  for (int r : ring.local_ranks()) {
    CUDA_CHECK(cudaSetDevice(ring.device(r)));
    const VectorCheck c = check_all_reduced(ring.vector(r), n, o.seed + n, team.ranks(), o.exact());
    if (!c.ok())
      std::printf("%s", wrap_text(who + ", " + format_bytes(n * sizeof(float)) + ", rank " + std::to_string(r) + ": " +
                                  c.summary()).c_str());
    ok = ok && c.ok();
    high.push_back(static_cast<double>(c.bits >> 32));
    low.push_back(static_cast<double>(c.bits & 0xFFFFFFFFu));
  }
  const std::vector<double> all_high = team.collect(high), all_low = team.collect(low);
  const bool same_bits = std::count(all_high.begin(), all_high.end(), all_high[0]) == team.ranks() &&
                         std::count(all_low.begin(), all_low.end(), all_low[0]) == team.ranks();
  if (!same_bits && team.prints())
    std::printf("%s, %s: the ranks' vectors differ\n", who.c_str(), format_bytes(n * sizeof(float)).c_str());
  return everywhere(team, ok) && same_bits;
}

std::string pieces_of(const FusedRing& fused, const SessionOptions& o) {
  const std::vector<std::size_t> sizes = o.all_reduce_bytes();
  const auto piece = [&](std::size_t bytes) {
    return format_bytes(fused.plan(bytes / sizeof(float)).chunk_elements * sizeof(float));
  };
  const std::string smallest = piece(sizes.front()), largest_piece = piece(sizes.back());
  return "the fused ring runs " + count_of(fused.blocks(), "block") + " per rank, pieces of " +
         (smallest == largest_piece ? smallest : smallest + " to " + largest_piece);
}
}  // namespace

bool run_all_reduce(Team& team, const SessionOptions& o, RunRecord& record) {
  const int p = team.ranks();
  say(team, "== The all-reduce: every rank ends with the element-wise sum ==");
  if (p < 2) {
    say(team, wrap_text("one rank: nothing crosses a link, so there is nothing to measure. With one GPU, run "
                        "`ch10_multi_gpu --ranks-per-gpu 2` (or `mpirun -np 2 ch10_multi_gpu_mpi`) to check both "
                        "rings with two ranks on it; NCCL allows one rank per GPU, so only a machine with two or "
                        "more GPUs shows NCCL, the links, and the rings against them."));
    return true;
  }
  Ring& ring = team.ring();
  std::vector<float*> vectors;
  for (int r : ring.local_ranks()) vectors.push_back(ring.vector(r));

  const auto fill = [&](std::size_t n) {
    for (int r : ring.local_ranks()) {
      CUDA_CHECK(cudaSetDevice(ring.device(r)));
      fill_inputs(ring.vector(r), n, o.seed + n, r, o.exact());
    }
  };

  const std::size_t link_bytes = std::min(ring.capacity() * sizeof(float), std::size_t{256} << 20);
  fill(ring.capacity());  // the link measurement copies whole vectors: give them values first
  const LinkBandwidth measured = measure_links(ring, link_bytes, 5, [&] { team.barrier(); });
  double link_gbps = 0, stores_gbps = 0;
  const Table links = links_table(team, measured, link_bytes, link_gbps);
  show(team, "The links of the ring:", links);
  record.add("links", "The links of the ring", links);
  const Table drivers = drivers_table(team, measured, stores_gbps);
  show(team, "The same links, driven by copy engines and by kernels:", drivers);
  record.add("link_drivers", "The links driven by copy engines and by kernels", drivers);

  FusedRing* fused = team.fused_ring();
  const std::vector<Contender> contenders = {
      {"copy-engine ring", [&](std::size_t n) { ring.all_reduce(n); }},
      {"fused ring", fused ? std::function<void(std::size_t)>([fused](std::size_t n) { fused->all_reduce(n); })
                           : nullptr},
      {"NCCL", team.has_nccl() ? std::function<void(std::size_t)>(
                                     [&](std::size_t n) { team.nccl_all_reduce(vectors, n); })
                               : nullptr},
  };
  say(team, fused ? pieces_of(*fused, o) : "the fused ring is " + team.fused_status());

  Table times({"vector", "check", "ms: copy-engine ring", "ms: fused ring", "ms: NCCL", "busbw GB/s: copy-engine ring",
               "busbw GB/s: fused ring", "busbw GB/s: NCCL"});
  Table speed({"vector", "x NCCL: copy-engine ring", "x NCCL: fused ring", "of link: copy-engine ring",
               "of link: fused ring", "predicted ms"});
  bool all_ok = true;
  for (std::size_t bytes : o.all_reduce_bytes()) {
    const std::size_t n = bytes / sizeof(float);
    const double predicted = predicted_ring_ms(static_cast<double>(bytes), p, link_gbps);
    std::vector<double> ms;  // [contender]: 0 where it did not run or failed
    bool size_ok = true;
    for (const Contender& c : contenders) {
      if (!c.run) {
        ms.push_back(0);
        continue;
      }
      fill(n);
      c.run(n);
      const bool ok = check_every_rank(team, o, n, c.name);
      size_ok = size_ok && ok;
      ms.push_back(ok ? time_ms(team, o.repetitions, [&] { c.run(n); }) : 0);
    }
    all_ok = all_ok && size_ok;
    const auto time = [&](std::size_t k) { return ms[k] > 0 ? Cell::num(ms[k], 4) : Cell::none(); };
    const auto busbw = [&](std::size_t k) {
      return ms[k] > 0 ? Cell::num(bus_bandwidth(algorithm_bandwidth(static_cast<double>(bytes), ms[k]), p), 1)
                       : Cell::none();
    };
    const auto versus = [&](std::size_t k, double reference) {
      return ms[k] > 0 && reference > 0 ? Cell::num(reference / ms[k], 2) : Cell::none();
    };
    times.add_row({format_bytes(bytes), size_ok ? "PASS" : "FAIL", time(0), time(1), time(2), busbw(0), busbw(1),
                   busbw(2)});
    speed.add_row({format_bytes(bytes), versus(0, ms[2]), versus(1, ms[2]), versus(0, predicted), versus(1, predicted),
                   Cell::num(predicted, 4)});
  }
  times.add_note("Every element of every rank is checked against the CPU's sum (" +
                 std::string(o.exact() ? "small integers: bit for bit" : "random floats: within p-1 roundings") +
                 "), and the ranks' vectors against each other, bit for bit.");
  times.add_note("Bandwidths as the NCCL performance tests define them: algbw = vector bytes / time, busbw = algbw * "
                 "2(p-1)/p, the rate each GPU's link carried.");
  times.add_note("Times: average of --reps all-reduces back to back, host clock, after " + std::to_string(kWarmup) +
                 " unmeasured ones. NCCL: " + team.nccl_status() + ".");
  show(team, "The all-reduce, both rings against NCCL:", times);
  record.add("all_reduce", "The all-reduce, both rings against NCCL", times);

  char line[240];
  std::snprintf(line, sizeof line, "predicted: 2(p-1)/p * vector / %.0f GB/s, the slowest link all at once, and "
                "nothing else. 'of link': the predicted time over the ring's, the share of the link's speed it "
                "reached.", link_gbps);
  speed.add_note("'x NCCL': NCCL's time over the ring's (above 1: the ring is faster).");
  speed.add_note(line);
  std::snprintf(line, sizeof line, "The fused ring's bytes cross as SM stores: a copy kernel's stores moved %.0f "
                "GB/s over these links all at once, %.2f of the copy engines' speed.", stores_gbps,
                link_gbps > 0 ? stores_gbps / link_gbps : 0.0);
  speed.add_note(line);
  const double peak = query_device(team.device_of(0)).peak_dram_gbps;
  std::snprintf(line, sizeof line, "At %.0f GB/s each way, a GPU's DRAM moves %.0f GB/s in the copy-engine ring's "
                "reduce-scatter and %.0f GB/s in the fused ring's (peak %.0f GB/s): see 'Where each byte goes'.",
                link_gbps, link_gbps / 4 * step_bytes(RingKind::copy_engine, true).dram(),
                link_gbps / 4 * step_bytes(RingKind::fused, true).dram(), peak);
  speed.add_note(line);
  const std::set<int> distinct = [&] {
    std::set<int> d;
    for (int r = 0; r < p; ++r) d.insert(team.device_of(r));
    return d;
  }();
  if (static_cast<int>(distinct.size()) < p)
    speed.add_note("Ranks share GPUs here: the 'links' are copies inside one GPU's memory, not NVLink or PCIe.");
  show(team, "Against NCCL and against the links:", speed);
  record.add("all_reduce_speed", "Both rings against NCCL and against the links", speed);
  return all_ok;
}

}  // namespace pmpp::ch10::multi_gpu::detail
