/// @file feedback.hpp
/// @brief Feedback cases ([feedback], no points): what one chosen launch of the code under test costs,
/// against its floor and the solution, with the profiler's counters for both.
///
/// A feedback case times the launch the way speed cases do (timing.hpp) on the code under test, then
/// on the solution, checks each time against the floor of the work (floor.hpp), and, where grade gives
/// a profiler (Settings::profiler), runs the launch once more in a worker of each side started behind
/// it (ProfiledWorker: the code under test's in its own sandbox). It writes all of that as the fact
/// "feedback", one line of JSON, which grade turns into the student's feedback.json. The counters come
/// from the code under test's own process and are its own word: they earn nothing.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "floor.hpp"

namespace pmpp_grader {

/// What the text predicts for a counter of the launch (grade's names: "sectors_per_request",
/// "threads_per_warp", "bank_conflicts"), where it predicts one.
using TextPrediction = std::pair<std::string, double>;

struct FeedbackTrial {
  std::string exercise;            ///< "ex10.1"
  std::string launch;              ///< "max_reduction of 2^28 floats"
  Work work;                       ///< what one launch must read, write and compute: its floor
  std::function<void()> prepare;   ///< untimed, before every run: new input, output poisoned
  std::function<void()> run;       ///< the call
  std::function<bool()> check;     ///< untimed, after every timed run: true when the output is right
  std::vector<TextPrediction> text = {};
  int warmup = 2;
  int repetitions = 7;
};

/// Run the feedback case (see above): note the fact, print a short account, and CHECK that the code
/// under test's runs were right and its time possible. Skips, not gradable, without a reference worker.
void give_feedback(const FeedbackTrial& trial);

}  // namespace pmpp_grader
