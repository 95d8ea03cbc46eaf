/// @file hold_still.hpp
/// @brief Holding a worker still between timed calls: every process and thread of it is stopped from
/// the moment a timed call's reply is read until the next call is sent, inside that call's clock.
///
/// Between two timed runs the trusted side prepares new input, poisons the output and evicts L2, and
/// none of that is timed. A worker left running then could start on the answer before the clock does
/// (a thread that watches for the poison, say), and be timed for less than its work. Held still, it
/// cannot: what it computes, it computes while it is timed. Two ways, both used where there are:
/// - its process group is sent SIGSTOP, and waited for until every thread of it is seen stopped (a
///   stop signal takes effect only when a thread next runs); SIGCONT lets it go;
/// - its cgroup v2 (where grade runs the code under test in one: PMPP_FREEZE_CGROUP) is frozen
///   (`cgroup.freeze`), which also holds a process that left the group, and is waited for until the
///   kernel reports it frozen.
/// Kernels it queued before go on running on the GPU: a kernel left behind that watches for the poison
/// is not held, and only the physics check on the net time (timing.hpp) can see what it gains.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>

namespace pmpp_grader {

class HoldStill {
 public:
  /// For the worker whose process group is @p group and whose cgroup v2 folder is @p cgroup ("": none).
  HoldStill(pid_t group, std::string cgroup) : group_(group), cgroup_(std::move(cgroup)) {}
  HoldStill(const HoldStill&) = delete;
  HoldStill& operator=(const HoldStill&) = delete;

  /// Stop it all. False when it was not seen stopped (without a cgroup) or its cgroup did not report
  /// frozen within a second (a process inside the driver that long): the stop signals were sent all
  /// the same.
  bool hold();
  /// Let it go (nothing when it is not held).
  void release();
  bool held() const { return held_; }

 private:
  pid_t group_;
  std::string cgroup_;
  bool held_ = false;
};

}  // namespace pmpp_grader
