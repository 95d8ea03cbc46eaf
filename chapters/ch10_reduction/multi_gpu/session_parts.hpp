/// @file session_parts.hpp
/// @brief The pieces run_session is made of, for the files that share them: timing and agreeing
/// across the team (team_timing.cpp), and the two parts of a run (sum_across_gpus.cpp,
/// all_reduce_runs.cpp). Not for use outside the multi-GPU programs.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "ch10_reduction/multi_gpu/session.hpp"
#include "ch10_reduction/multi_gpu/team.hpp"
#include "pmpp/report.hpp"

namespace pmpp::ch10::multi_gpu::detail {

/// Unmeasured runs before every timing.
inline constexpr int kWarmup = 3;

/// Wait until every GPU this process drives is done.
void synchronize(Team& team);
/// The largest of every rank's @p local_value (every local rank gives the same one).
double largest(Team& team, double local_value);
/// True in every process when @p local_ok is true in every process.
bool everywhere(Team& team, bool local_ok);
/// Average milliseconds of @p repetitions calls of @p enqueue, back to back, after kWarmup more.
double time_ms(Team& team, int repetitions, const std::function<void()>& enqueue);

/// A line, printed by the process that prints.
void say(Team& team, const std::string& text);
/// @p title, then @p table, printed by the process that prints.
void show(Team& team, const std::string& title, const Table& table);
/// "256 MiB", "1 GiB", "16 KiB".
std::string format_bytes(std::size_t bytes);

/// The sum of options.n floats across the ranks: one GPU against every GPU, ending with NCCL or with
/// peer reads. True when every check passed.
bool run_sum(Team& team, const SessionOptions& options, RunRecord& record);
/// The links, and the all-reduce of every size: both rings and NCCL. True when every check passed.
bool run_all_reduce(Team& team, const SessionOptions& options, RunRecord& record);

}  // namespace pmpp::ch10::multi_gpu::detail
