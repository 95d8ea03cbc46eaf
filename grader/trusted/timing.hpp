/// @file timing.hpp
/// @brief How the grader times a call: on the trusted side's clock around the whole remote call
/// (request sent, kernel run, device synchronized, reply read), with L2 evicted before each run, after
/// warm-up runs, every run on new input (prepare) with its output checked (check). Speed cases and
/// feedback cases both time this way.
///
/// Between runs the worker is held still (hold_still.hpp): nothing of it runs while the input is
/// prepared and checked. After each run an empty call (one empty kernel launched) is timed the same way,
/// L2 evicted first: the call's fixed cost, which the physics check takes off (the least of those
/// seen, so that noise in it never makes a kernel look faster than it is).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "pmpp/device_buffer.hpp"
#include "workers.hpp"

namespace pmpp_grader {

/// The runs of one side.
struct TimedRuns {
  std::vector<double> ms;        ///< each timed run, around the whole call
  std::vector<double> empty_ms;  ///< each empty call after a run
  int wrong = 0;                 ///< runs whose output check failed
  int not_held = 0;              ///< times the worker could not be made sure to be held still
  double median_ms() const;
  /// The call's fixed cost: the least empty call (0 when none was timed).
  double fixed_ms() const;
  /// The work's own time: the median run less the fixed cost (never below 0).
  double net_ms() const;
};

/// Evicts L2 by reading a buffer twice its size (made once per case).
class L2Evictor {
 public:
  L2Evictor();
  void evict();

 private:
  pmpp::DeviceBuffer<unsigned char> scratch_;
  pmpp::DeviceBuffer<unsigned int> sink_;
};

/// Time @p run on @p side: @p warmup runs, then @p repetitions timed ones (see above).
TimedRuns time_runs(Side side, const std::function<void()>& prepare, const std::function<void()>& run,
                    const std::function<bool()>& check, int warmup, int repetitions, L2Evictor& l2);

}  // namespace pmpp_grader
