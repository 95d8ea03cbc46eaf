/// @file session.hpp
/// @brief What ch10_multi_gpu and ch10_multi_gpu_mpi do, however their ranks were started: the
/// options, the analysis that needs no GPU, and the checked and timed runs on a Team.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "ch10_reduction/multi_gpu/team.hpp"
#include "pmpp/cli.hpp"

namespace pmpp::ch10::multi_gpu {

struct SessionOptions {
  std::string part = "all";               ///< "all", "sum" (across GPUs) or "all-reduce"
  std::size_t n = std::size_t{1} << 28;   ///< floats the sum across GPUs adds
  std::string inputs = "exact";           ///< "exact" or "floats"
  std::uint64_t seed = 1;
  int min_mib = 8, max_mib = 256;         ///< all-reduce vectors of min_mib, 2 min_mib, ... up to max_mib MiB
  int chunk_kib = 0;                      ///< the ring's message size; 0: the plan's default
  int slots = kDefaultSlots;              ///< the ring's staging slots per rank
  int repetitions = 20;
  bool analysis_only = false;
  std::string json;
  int gpus = 0;           ///< one process only: GPUs to use (0: all)
  int ranks_per_gpu = 1;  ///< one process only: ranks sharing each GPU

  bool exact() const { return inputs == "exact"; }
  bool runs_sum() const { return part != "all-reduce"; }
  bool runs_all_reduce() const { return part != "sum"; }
  /// The all-reduce vectors' sizes in bytes, smallest first.
  std::vector<std::size_t> all_reduce_bytes() const;
  /// Floats in the largest all-reduce vector (0 when there is no all-reduce to run).
  std::size_t capacity() const;
  RingOptions ring_options() const;
};

/// Register the options; @p one_process adds --gpus and --ranks-per-gpu.
void add_options(Cli& cli, SessionOptions& options, bool one_process);
/// Reject what the ranges cannot express (--min-mib above --max-mib).
void validate(const SessionOptions& options);

/// The analysis that needs no GPU, for @p ranks ranks: the ring's schedule step by step, and what each
/// GPU sends for each vector size. @p planned: "planned for 4 GPUs" when no GPU said how many there are.
void print_analysis(const SessionOptions& options, int ranks, bool planned);

/// The checked and timed runs on @p team: the sum across GPUs against one GPU's stage 06, the links,
/// and the all-reduce sweep, ring against NCCL. Returns 0 when every check passed, 1 otherwise; writes
/// the tables to options.json when set (from the process that prints).
int run_session(Team& team, const SessionOptions& options, const std::string& program, const std::string& arguments);

}  // namespace pmpp::ch10::multi_gpu
