// The sum across GPUs: every rank reduces its shard with the chapter's last stage, then the p partial
// sums become the total on every rank, either with NCCL's all-reduce, with peer reads (PeerSum), or
// inside the reduction's own kernel, in each rank's last block (LastBlockSum).
// Checked like every reduction of the chapter, and timed against one GPU reducing everything.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>

#include "ch10_reduction/multi_gpu/session_parts.hpp"
#include "pmpp/check.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10::multi_gpu::detail {

namespace {
// One rank's part of the sum: its shard of the input and the stage's scratch.
struct Shard {
  int device = 0;
  std::size_t count = 0, rounding_depth = 0;
  DeviceBuffer<float> input, partial;  // partial: where NCCL's all-reduce adds the partial sums in place
  DeviceBuffer<unsigned char> scratch;

  Shard(int device_, const float* host, std::size_t count_, const Stage& stage) : device(device_), count(count_) {
    CUDA_CHECK(cudaSetDevice(device));
    input = DeviceBuffer<float>(count);
    input.copy_from(host, count);
    partial = DeviceBuffer<float>(1);
    partial.poison();  // NaN until a reduction writes it
    const std::size_t scratch_bytes = stage.scratch_bytes ? stage.scratch_bytes(count, Op::sum) : 0;
    scratch = DeviceBuffer<unsigned char>(std::max<std::size_t>(1, scratch_bytes));
    CUDA_CHECK(cudaMemset(scratch.data(), 0, scratch.bytes()));  // once: the stage leaves it zeroed
  }
  // The stage's reduction of the shard into one float at `output` (on this rank's device).
  void reduce_into(const Stage& stage, float* output) {
    CUDA_CHECK(cudaSetDevice(device));
    ReduceArgs args;
    args.input = input.data();
    args.output = output;
    args.n = count;
    args.op = Op::sum;
    args.scratch = scratch.data();
    rounding_depth = stage.launch(args).rounding_depth;
  }
};

float read_back(int device, const float* value) {
  CUDA_CHECK(cudaSetDevice(device));
  float host = 0;
  CUDA_CHECK(cudaMemcpy(&host, value, sizeof host, cudaMemcpyDeviceToHost));  // after the default stream's work
  return host;
}

// A way of ending the sum: what it enqueues, and where each local rank finds its total. An ending
// inside the reduction's kernel has no last level to run alone (last_level_alone empty).
struct Ending {
  std::string name, row;
  std::function<void()> run, last_level_alone;
  std::function<const float*(std::size_t)> total;
};
}  // namespace

bool run_sum(Team& team, const SessionOptions& o, RunRecord& record) {
  const int p = team.ranks();
  say(team, "== The sum across GPUs: " + std::to_string(o.n) + " floats, a shard per rank ==");
  // The chapter's last stage, its fastest, reduces each shard.
  const Stage& stage = stages().back();
  const std::string stage_name = "stage " + std::string(stage.id).substr(0, 2);

  const InputKind kind = o.exact() ? InputKind::exact : InputKind::floats;
  const std::vector<float> x = make_inputs(o.n, Op::sum, kind, o.seed);
  const double want = reduce_reference(x, Op::sum);
  const bool exact = sum_is_exact_in_float(x);
  const double magnitude = sum_of_magnitudes(x);
  if (team.prints()) std::printf("%s", wrap_text("inputs: " + describe_inputs(o.n, Op::sum, kind), "", "  ").c_str());

  // Shards as the ring cuts segments: 256-byte aligned, balanced to within 64 floats.
  const RingPlan cut = plan_ring(o.n, p);
  std::vector<std::unique_ptr<Shard>> shards;
  std::vector<float*> partials;
  for (int r : team.ring().local_ranks()) {
    const Range range = cut.segment(r);
    shards.push_back(std::make_unique<Shard>(team.device_of(r), x.data() + range.begin, range.size(), stage));
    partials.push_back(shards.back()->partial.data());
  }

  std::vector<Ending> endings;
  if (team.has_nccl()) {
    //! [sum_with_nccl]
    const auto run = [&] {
      for (auto& shard : shards) shard->reduce_into(stage, shard->partial.data());  // every GPU at once
      team.nccl_all_reduce(partials, 1);  // then p floats cross the links, in a library call
    };
    //! [sum_with_nccl]
    endings.push_back({"NCCL", stage_name + " per shard + NCCL", run, [&] { team.nccl_all_reduce(partials, 1); },
                       [&](std::size_t i) -> const float* { return partials[i]; }});
  }
  if (PeerSum* peer = team.peer_sum()) {
    //! [sum_with_peer_reads]
    const auto run = [&, peer] {
      for (std::size_t i = 0; i < shards.size(); ++i) shards[i]->reduce_into(stage, peer->partial(i));
      peer->combine();  // each rank reads the others' partial sums over the links
    };
    //! [sum_with_peer_reads]
    endings.push_back({"peer reads", stage_name + " per shard + peer reads", run, [peer] { peer->combine(); },
                       [peer](std::size_t i) { return peer->total(i); }});
  }
  // The last-block ending runs stage 06's loop in a kernel of its own (last_block_sum.cu).
  const std::string last_block_row = "stage 06 per shard, ended in its last block";
  if (LastBlockSum* last = team.last_block_sum()) {
    std::vector<const float*> inputs;
    std::vector<std::size_t> counts;
    for (auto& shard : shards) {
      inputs.push_back(shard->input.data());
      counts.push_back(shard->count);
    }
    //! [sum_in_last_block]
    const auto run = [&, last, inputs, counts] {
      const std::vector<ReductionLaunch> launches = last->sum(inputs, counts, partials);  // one kernel per GPU
      for (std::size_t i = 0; i < shards.size(); ++i) shards[i]->rounding_depth = launches[i].rounding_depth;
    };
    //! [sum_in_last_block]
    endings.push_back({"its last block", last_block_row, run, {},
                       [&](std::size_t i) -> const float* { return partials[i]; }});
  }
  if (endings.empty()) {
    say(team, "skipped: neither NCCL (" + team.nccl_status() + ") nor peer reads (" + team.peer_sum_status() +
                  ") can combine the partial sums here\n");
    return true;
  }

  // Check each ending: every rank's total within the bound (each partial sum goes through at most p-1
  // more roundings), and the same bits on every rank.
  std::vector<bool> passed;
  for (const Ending& ending : endings) {
    for (auto& shard : shards) {  // NaN again: a total left by the ending before must not pass for this one's
      CUDA_CHECK(cudaSetDevice(shard->device));
      shard->partial.poison();
    }
    ending.run();
    std::size_t depth = 0;
    for (auto& shard : shards) depth = std::max(depth, shard->rounding_depth);
    depth = static_cast<std::size_t>(largest(team, static_cast<double>(depth))) + static_cast<std::size_t>(p - 1);
    const Tolerance tolerance = exact ? Tolerance::exact() : Tolerance{sum_error_bound(depth, magnitude), 0};
    bool local_ok = true;
    std::vector<double> got;
    for (std::size_t i = 0; i < shards.size(); ++i) {
      got.push_back(read_back(shards[i]->device, ending.total(i)));
      if (!within(got.back(), want, tolerance) && local_ok) {
        std::printf("sum across GPUs, %s: FAIL on rank %d: got %.9g, want %.9g\n", ending.name.c_str(),
                    team.ring().local_ranks()[i], got.back(), want);
        local_ok = false;
      }
    }
    const std::vector<double> every_rank = team.collect(got);
    const bool same_bits =
        std::all_of(every_rank.begin(), every_rank.end(), [&](double v) { return v == every_rank[0]; });
    const bool ok = everywhere(team, local_ok) && same_bits;
    passed.push_back(ok);
    char line[200];
    std::snprintf(line, sizeof line, "check, %s (every rank): %s, want %.9g%s%s", ending.name.c_str(),
                  ok ? "PASS" : "FAIL", want, exact ? " (exact: bit for bit)" : " (within the rounding bound)",
                  same_bits ? "" : "; the ranks' totals differ");
    say(team, line);
  }

  // One GPU's stage over the whole input, on rank 0's GPU, if it fits there beside the shard.
  enum WholeRun { kDoesNotFit = 0, kPassed = 1, kFailed = 2 };
  std::unique_ptr<Shard> whole;
  int local_state = kDoesNotFit;
  if (team.ring().local_ranks().front() == 0) {
    CUDA_CHECK(cudaSetDevice(team.device_of(0)));
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (o.n * sizeof(float) + (std::size_t{256} << 20) < free_bytes) {
      whole = std::make_unique<Shard>(team.device_of(0), x.data(), o.n, stage);
      whole->reduce_into(stage, whole->partial.data());
      const Tolerance one =
          exact ? Tolerance::exact() : Tolerance{sum_error_bound(whole->rounding_depth, magnitude), 0};
      local_state = within(read_back(whole->device, whole->partial.data()), want, one) ? kPassed : kFailed;
    }
  }
  // Rank 0's outcome, known to every process (collect lists the ranks in order).
  const int whole_state = static_cast<int>(
      team.collect(std::vector<double>(team.ring().local_ranks().size(), static_cast<double>(local_state)))[0]);

  say(team, "");
  Table t({"run", "GPUs", "check", "ms", "GB/s", "x one GPU"});
  const double bytes = static_cast<double>(o.n) * sizeof(float);
  const std::string gpus = std::to_string(p);
  double one_ms = 0;
  if (whole_state == kPassed) {
    one_ms = time_ms(team, o.repetitions, [&] {
      if (whole) whole->reduce_into(stage, whole->partial.data());
    });
    t.add_row({stage_name + " on one GPU", "1", "PASS", Cell::num(one_ms, 4), Cell::num(bytes / one_ms / 1e6, 0),
               "1.00"});
  } else {
    t.add_row({stage_name + " on one GPU", "1", whole_state == kFailed ? "FAIL" : "-"});
    if (whole_state == kDoesNotFit)
      t.add_note("The input does not fit on one GPU beside its shard: no one-GPU run to compare with.");
  }
  for (std::size_t k = 0; k < endings.size(); ++k) {
    const std::string& run = endings[k].row;
    if (!passed[k]) {
      t.add_row({run, gpus, "FAIL"});
      continue;
    }
    const double ms = time_ms(team, o.repetitions, endings[k].run);
    t.add_row({run, gpus, "PASS", Cell::num(ms, 4), Cell::num(bytes / ms / 1e6, 0),
               one_ms > 0 ? Cell::num(one_ms / ms, 2) : Cell::none()});
  }
  // The ceiling of every ending: each rank reduces its shard, all at once, and nothing combines them.
  // What keeps it below p times one GPU is the reduction kernel itself: its start and its last wave
  // cost as much on a shard as on the whole input.
  const double shards_ms = time_ms(team, o.repetitions, [&] {
    for (auto& shard : shards) shard->reduce_into(stage, shard->partial.data());
  });
  t.add_row({"  every shard alone, no last level", gpus, "-", Cell::num(shards_ms, 4),
             Cell::num(bytes / shards_ms / 1e6, 0), one_ms > 0 ? Cell::num(one_ms / shards_ms, 2) : Cell::none()});
  if (!team.last_block_sum()) {
    t.add_row({last_block_row, gpus, "not run"});
    t.add_note("Ended in its last block: " + team.last_block_sum_status() + ".");
  }
  for (std::size_t k = 0; k < endings.size(); ++k)
    if (passed[k] && endings[k].last_level_alone)
      t.add_row({"  " + endings[k].name + " alone", gpus, "-",
                 Cell::num(time_ms(team, o.repetitions, endings[k].last_level_alone), 4)});
  t.add_note("GB/s: the input's bytes over the time. Each GPU reads only its shard, all at once, so the ideal is " +
             gpus + " times one GPU's rate; what stops short of it is the last level, " + count_of(p, "float") +
             " to combine, which costs latency, not bandwidth.");
  t.add_note("NCCL: an all-reduce of the partial sums, a library call. Peer reads: one kernel per GPU in which "
             "each rank reads the other ranks' partial sums from their memory.");
  t.add_note("Ended in its last block: no second launch. The block that stage 06 elects to combine the "
             "blocks' results stores the rank's partial sum into every rank's memory and waits for the "
             "others' in its own, so the last level starts as soon as the slowest rank's shard is done, "
             "not after the reduction kernel drains and another kernel starts.");
  t.add_note("'every shard alone': the shards reduced at once and never combined, the most any ending can "
             "reach; what keeps it below " + gpus + " times one GPU is the kernel's own start and last wave, "
             "as long on a shard as on the whole input.");
  t.add_note("'NCCL alone', 'peer reads alone': the last level by itself, on partial sums already in place.");
  t.add_note("Times: average of --reps runs back to back, host clock.");
  show(team, "", t);
  record.add("sum", "The sum across GPUs against one GPU", t);
  return std::all_of(passed.begin(), passed.end(), [](bool ok) { return ok; }) && whole_state != kFailed;
}

}  // namespace pmpp::ch10::multi_gpu::detail
