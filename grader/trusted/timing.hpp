/// @file timing.hpp
/// @brief How the grader times a call: on the trusted side's clock around the whole remote call
/// (request sent, kernel run, device synchronized, reply read), with L2 evicted before each run, after
/// warm-up runs, every run on new input (prepare) with its output checked (check). Speed cases and
/// feedback cases both time this way.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "pmpp/device_buffer.hpp"
#include "workers.hpp"

namespace pmpp_grader {

/// The runs of one side.
struct TimedRuns {
  std::vector<double> ms;
  int wrong = 0;  ///< runs whose output check failed
  double median_ms() const;
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
