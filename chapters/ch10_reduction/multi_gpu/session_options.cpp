// The multi-GPU programs' options: what each of them takes, and the sizes and ring options they imply.
#include "ch10_reduction/multi_gpu/session.hpp"

namespace pmpp::ch10::multi_gpu {

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

FusedRingOptions SessionOptions::fused_options() const {
  FusedRingOptions options;
  options.chunk_elements = static_cast<std::size_t>(piece_kib) * 1024 / sizeof(float);
  return options;
}

void add_options(Cli& cli, SessionOptions& o, bool one_process) {
  cli.option("--part", o.part, "what to run: the sum across GPUs, the all-reduce, or both",
             {"all", "sum", "all-reduce"})
      .option("--n", o.n, "floats the sum across GPUs adds (one GPU adds them too, for comparison)", 1,
              std::int64_t{1} << 36)
      .option("--inputs", o.inputs,
              "exact: small integers, whose sums are exact in any order (checked bit for bit); floats: random "
              "floats, checked against the rounding-error bound",
              {"exact", "floats"})
      .option("--seed", o.seed, "seed of the inputs", 0, INT64_MAX)
      .option("--min-mib", o.min_mib, "smallest all-reduce vector, in MiB; the sizes double up to --max-mib", 1, 65536)
      .option("--max-mib", o.max_mib, "largest all-reduce vector, in MiB", 1, 65536)
      .option("--chunk-kib", o.chunk_kib, "the copy-engine ring's message, in KiB (0: about 8 per segment)", 0,
              1 << 22)
      .option("--slots", o.slots, "the copy-engine ring's staging slots per rank: messages in flight to it", 1, 64)
      .option("--piece-kib", o.piece_kib, "the fused ring's piece, in KiB (0: one or more per block, 16 KiB to 1 MiB)",
              0, 1 << 22)
      .option("--reps", o.repetitions, "timed runs, back to back (their average is reported, as the NCCL tests do)",
              1, 1000)
      .flag("--analysis", o.analysis_only, "print the rings' schedule and traffic only (needs no GPU)")
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
  if (one_process)
    cli.option("--gpus", o.gpus, "GPUs to use, from device 0 (0: every GPU)", 0, 1024)
        .option("--ranks-per-gpu", o.ranks_per_gpu,
                "ranks sharing each GPU: above 1, the rings run with more ranks than GPUs (NCCL allows one)", 1, 16);
}

void validate(const SessionOptions& o) {
  if (o.min_mib > o.max_mib)
    throw UsageError("--min-mib " + std::to_string(o.min_mib) + " is above --max-mib " + std::to_string(o.max_mib));
}

}  // namespace pmpp::ch10::multi_gpu
