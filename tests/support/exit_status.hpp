/// @file exit_status.hpp
/// @brief The exit status of every Catch2 test executable here, the same with every Catch2 version.
///
/// CTest reads exit status 4 as "skipped" (`SKIP_RETURN_CODE 4`), because Catch2 exits with 4 when every
/// selected test case called SKIP(). But Catch2 before 3.7.1 exits with the *number of failed
/// assertions* when there are failures: a run with exactly four failed checks would be reported as
/// skipped, not failed. Our mains therefore decide the status from the run's totals.
#pragma once

namespace pmpp_test {

/// Exit status of a run in which any assertion or test case failed (what Catch2 3.7.1 and later use).
inline constexpr int kFailedExitStatus = 42;

/// The exit status for a finished Catch2 run that returned `catch_status`: kFailedExitStatus when anything
/// failed, whatever Catch2 returned; otherwise Catch2's own status (0, or 4 when everything skipped).
int exit_status(int catch_status);

}  // namespace pmpp_test
