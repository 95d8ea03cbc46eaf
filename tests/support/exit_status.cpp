// Counts the run's failures with a listener, so that main() can return a status CTest cannot mistake
// for "skipped" (see exit_status.hpp).
#include "exit_status.hpp"

#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>

#include <cstdint>

namespace {

std::uint64_t failures = 0;

class FailureCounter : public Catch::EventListenerBase {
 public:
  using Catch::EventListenerBase::EventListenerBase;
  void testRunEnded(const Catch::TestRunStats& stats) override {
    failures = stats.totals.assertions.failed + stats.totals.testCases.failed;
  }
};

}  // namespace

// Registered here, in the file that defines exit_status(): every main() calls it, so the linker keeps
// this file and the listener with it.
CATCH_REGISTER_LISTENER(FailureCounter)

int pmpp_test::exit_status(int catch_status) { return failures > 0 ? kFailedExitStatus : catch_status; }
