/// @file session.hpp
/// @brief What ch10_multi_gpu and ch10_multi_gpu_mpi do, however their ranks were started: the
/// options (session_options.cpp), the analysis that needs no GPU (ring_analysis.cpp), and the checked
/// and timed runs on a Team (session.cpp, with sum_across_gpus.cpp and all_reduce_runs.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "ch10_reduction/multi_gpu/team.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/report.hpp"

namespace pmpp::ch10::multi_gpu {

struct SessionOptions {
  std::string part = "all";               ///< "all", "sum" (across GPUs) or "all-reduce"
  std::size_t n = std::size_t{1} << 28;   ///< floats the sum across GPUs adds
  std::string inputs = "exact";           ///< "exact" or "floats"
  std::uint64_t seed = 1;
  int min_mib = 8, max_mib = 256;         ///< all-reduce vectors of min_mib, 2 min_mib, ... up to max_mib MiB
  int chunk_kib = 0;                      ///< the copy-engine ring's message size; 0: the plan's default
  int slots = kDefaultSlots;              ///< the copy-engine ring's staging slots per rank
  int piece_kib = 0;                      ///< the fused ring's piece size; 0: the plan's default
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
  FusedRingOptions fused_options() const;
};

/// Register the options; @p one_process adds --gpus and --ranks-per-gpu.
void add_options(Cli& cli, SessionOptions& options, bool one_process);
/// Reject what the ranges cannot express (--min-mib above --max-mib).
void validate(const SessionOptions& options);

/// The problem in words for the run record's captions: "sum of 268435456 floats, all-reduce of 8 MiB to
/// 256 MiB, 2 ranks: one process driving 2 GPUs" (@p ranks_text: "2 ranks: one process driving 2 GPUs").
std::string problem_in_words(const SessionOptions& options, const std::string& ranks_text);

/// The analysis that needs no GPU, for @p ranks ranks: the ring's schedule step by step, what each GPU
/// sends for each vector size, and where each byte goes in either ring; printed, and kept in @p record.
/// @p whose says where the rank count came from ("the 2 GPUs of this machine", "no GPU here: 4 GPUs
/// assumed").
void print_analysis(const SessionOptions& options, int ranks, const std::string& whose, RunRecord& record);

/// The checked and timed runs on @p team: the sum across GPUs against one GPU, the links, and the
/// all-reduce sweep, both rings against NCCL, kept in @p record (which the process that prints writes
/// to options.json). Returns 0 when every check passed, 1 otherwise.
int run_session(Team& team, const SessionOptions& options, RunRecord& record);

}  // namespace pmpp::ch10::multi_gpu
