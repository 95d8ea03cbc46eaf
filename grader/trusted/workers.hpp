/// @file workers.hpp
/// @brief The workers of the test case being run in this (trusted) process.
///
/// Every test case gets a fresh worker for the code under test, started before the case's first line
/// runs (so its static constructors always run, even where the case is skipped for want of a GPU) and
/// stopped after its last: no GPU state (a sticky error, a device limit, constant memory) and no
/// process outlives the case. Speed cases also start the solution's worker, the *reference*.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace pmpp_grader {

/// Exit status of a test process whose code under test misbehaved (did not start, crashed, hung or
/// broke the protocol) in the case it ran, whatever the case's checks said.
inline constexpr int kMisbehavedExitStatus = 70;

struct Settings {
  std::string worker;                 ///< --worker: the code under test
  std::string reference_worker;       ///< --reference-worker: the solution, timed in speed cases
  std::vector<std::string> sandbox;   ///< PMPP_SANDBOX: how to start the code under test (a prefix)
  std::vector<std::string> clean_up;  ///< PMPP_CLEANUP: ends every process the code under test left
  double timeout_s = 60;              ///< PMPP_WORKER_TIMEOUT: for its start and for each call
  bool alone = false;                 ///< PMPP_CASE_ALONE=1: no other case runs on this GPU
  /// PMPP_GPU_MEMORY_GIB: run as on a smaller GPU, with this much of the GPU's memory left free (the
  /// rest held for the whole run); a case that then finds too little fails instead of skipping.
  double gpu_memory_gib = 0;
  /// PMPP_PROFILER: the profiler's command line that a feedback case starts one more worker of each
  /// side behind (one argument per line; grade gives Nsight Compute's, with the metrics it reads); empty:
  /// the feedback is not profiled.
  std::vector<std::string> profiler;
  /// PMPP_FREEZE_CGROUP: the cgroup v2 folder the code under test runs in (grade makes one per case),
  /// frozen between timed calls (hold_still.hpp); empty: its process group alone is stopped.
  std::string freeze_cgroup;

  /// Read the PMPP_* variables (commands: one argument per line).
  void read_environment();
};
Settings& settings();

/// Start the code under test's worker for the case about to run; stop every worker after it, and
/// print what the code under test printed.
void begin_case();
void end_case();

/// Which worker remote calls go to.
enum class Side { code_under_test, reference };

/// Within its scope, remote calls go to @p side.
class UseSide {
 public:
  explicit UseSide(Side side);
  ~UseSide();
  UseSide(const UseSide&) = delete;
  UseSide& operator=(const UseSide&) = delete;

 private:
  Side previous_;
};

/// True when this process can use a GPU (asked once).
bool gpu_present();

/// True when a reference worker was given, so speed can be compared.
bool reference_available();

/// End the code under test's worker for the rest of the case, and every process it left behind
/// (PMPP_CLEANUP), so that nothing of it runs while the reference is timed.
void retire_code_under_test();

/// Stop every process and thread of the current side's worker until its next call, which lets it go
/// once its clock has started (hold_still.hpp). False when that could not be made sure of.
bool hold_still_until_next_call();
/// Let the current side's worker go, if it is held: a profiled worker of the code under test starts in
/// the same cgroup, which must not be frozen then.
void let_go_of_worker();

/// Seconds spent in remote calls (request sent to reply read) since the last reset.
double call_seconds();
void reset_call_seconds();

/// Why the code under test failed this case whatever its checks say; empty when it behaved.
const std::string& misbehaviour();

/// Whether the code under test holds GPU memory the case needs: with too little free, a test calls
/// this before it skips. Where the case runs alone on its GPU, it ends the code under test (and all
/// it left) for the rest of the case, and says whether @p bytes are free without it; beside other
/// cases it says false (their use of the GPU comes and goes, and the case, skipped, runs again
/// alone). A worker that took the memory from its static constructors on would otherwise turn a case
/// it fails into one that is not gradable.
bool code_under_test_holds_gpu_memory(std::size_t bytes);

/// Within its scope, the calls of @p side go to a worker of their own, started behind the profiler
/// (Settings::profiler): the code under test's inside the same sandbox as every worker of it
/// (PMPP_SANDBOX, then the profiler, then the worker), so it gains no right; the solution's as the
/// test process starts it. Nothing this worker does is the case's verdict: a call to it that does not
/// return throws ProfiledRunFailed, and no misbehaviour is noted.
class ProfiledWorker {
 public:
  ProfiledWorker(Side side, double timeout_s);
  ~ProfiledWorker();
  ProfiledWorker(const ProfiledWorker&) = delete;
  ProfiledWorker& operator=(const ProfiledWorker&) = delete;
  /// Why it did not start ("" when it did).
  const std::string& failed() const { return failed_; }
  /// End it, giving the profiler @p grace_s seconds to write its report, and return all it printed
  /// (the profiler's report among the worker's own output).
  std::string finish(double grace_s);

 private:
  Side previous_;
  std::string failed_;
};

/// A call to a profiled worker that did not return (see ProfiledWorker).
class ProfiledRunFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Write what this process observed of the case, for grade, to @p path (one fact a line, a name and
/// its text separated by a tab): "misbehaved" (see misbehaviour()) and "short_of_gpu_memory" (one of
/// the test's allocations failed for want of GPU memory, or the code under test reported running out:
/// either way the case may have met another case's use of the GPU). Nothing in it is the worker's
/// text. A feedback case adds "feedback": one line of JSON (feedback.hpp). grade reads verdicts from these facts, the XML report and the exit status, never from what
/// the test process printed.
void write_facts(const std::string& path);
/// Add the fact "feedback" (one line of JSON) for write_facts.
void note_feedback(const std::string& json_line);

}  // namespace pmpp_grader
