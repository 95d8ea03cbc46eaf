/// @file workers.hpp
/// @brief The workers of the test case being run in this (trusted) process.
///
/// Every test case gets a fresh worker for the code under test, started before the case's first line
/// runs (so its static constructors always run, even where the case is skipped for want of a GPU) and
/// stopped after its last: no GPU state (a sticky error, a device limit, constant memory) and no
/// process outlives the case. Speed cases also start the solution's worker, the *reference*.
#pragma once

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

/// Seconds spent in remote calls (request sent to reply read) since the last reset.
double call_seconds();
void reset_call_seconds();

/// Why the code under test failed this case whatever its checks say; empty when it behaved.
const std::string& misbehaviour();

}  // namespace pmpp_grader
