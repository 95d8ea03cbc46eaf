/// @file speed_trial.hpp
/// @brief Speed points: the code under test timed against the solution, in the same test process, on
/// the same GPU, in the same run.
///
/// Both run through their workers and are timed the same way: the trusted side's clock around each
/// whole call (request sent, kernel run, device synchronized, reply read), L2 evicted before each run,
/// warm-up runs first, the median of the rest. Every timed run gets new input (prepare) and has its
/// output checked (check): an answer kept from an earlier run cannot score. The code under test is
/// timed first; then it, and every process it started, is ended before the solution is timed, so it
/// cannot slow the solution down. Each side's throughput is its work's own: its median call less the
/// call's fixed cost, an empty call timed beside it (timing.hpp). Reaching `fraction` of the solution's
/// throughput earns the case, unless the time is physically impossible: below the floor of the work the
/// call must do (floor.hpp), which no honest kernel reaches.
#pragma once

#include <functional>
#include <string>

#include "floor.hpp"

namespace pmpp_grader {

struct SpeedTrial {
  std::string what;                ///< e.g. "max_reduction, 2^28 floats"
  double fraction = 0.5;           ///< of the solution's throughput (its time / yours) needed to pass
  std::function<void()> prepare;   ///< untimed, before every run: new input, output poisoned
  std::function<void()> run;       ///< the timed remote call(s)
  std::function<bool()> check;     ///< untimed, after every run: true when the output is right
  Work work;                       ///< what one run must read, write and compute: its floor
  int warmup = 3;
  int repetitions = 15;
};

/// Time @p trial against the solution and CHECK the result and the physics (see above). Skips, not gradable, when no
/// reference worker was given. The code under test cannot be called after this in the same case.
void check_speed(const SpeedTrial& trial);

}  // namespace pmpp_grader
