// main() of every exercise test executable: Catch2's, plus two options that name the workers, and a
// listener that gives every test case a fresh worker for the code under test.
//
// These executables hold the tests, the CPU references and the verdict, and no code under test: it
// runs in the worker. Exit status: Catch2's, or kMisbehavedExitStatus when the code under test did
// not start, crashed, hung or broke the protocol during the case (then the case has failed, whatever
// its checks said; a line "pmpp-grader: ..." on stdout says why, for a person, and --facts FILE for
// grade). Any failed check gives pmpp_test::kFailedExitStatus, never a status CTest could read as
// "skipped" (see exit_status.hpp).
#include <sys/prctl.h>
#include <unistd.h>

#include <catch2/catch_session.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>

#include <cuda_runtime_api.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "exit_status.hpp"
#include "shareable_memory.hpp"
#include "workers.hpp"

namespace {

class FreshWorkerPerCase : public Catch::EventListenerBase {
 public:
  using Catch::EventListenerBase::EventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo&) override { pmpp_grader::begin_case(); }
  void testCaseEnded(const Catch::TestCaseStats&) override { pmpp_grader::end_case(); }
};

}  // namespace

CATCH_REGISTER_LISTENER(FreshWorkerPerCase)

int main(int argc, char* argv[]) {
  // Die with grade, which may be killed (SIGKILL) and cannot then end this process itself; gone already
  // (the parent is not the grade that started this, PMPP_GRADE_PID): stop at once.
  if (const char* grade = std::getenv("PMPP_GRADE_PID");
      prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || (grade != nullptr && getppid() != std::atoi(grade)))
    return 1;
  // Processes of the same user cannot read this one's memory or descriptors (/proc/<pid>/fd, ptrace):
  // what can be done when the code under test runs as the same user.
  prctl(PR_SET_DUMPABLE, 0);
  std::signal(SIGPIPE, SIG_IGN);  // a worker gone: a failed write, reported, not a dead test process

  Catch::Session session;
  pmpp_grader::Settings& settings = pmpp_grader::settings();
  using Catch::Clara::Opt;
  std::string facts;
  session.cli(session.cli() |
              Opt(settings.worker, "path")["--worker"]("the worker that runs the code under test") |
              Opt(settings.reference_worker, "path")["--reference-worker"](
                  "the worker that runs the solution, timed against the code under test in speed cases") |
              Opt(facts, "path")["--facts"]("where to write what this process observed of the case (workers.hpp)"));
  if (const int status = session.applyCommandLine(argc, argv)) return status;
  settings.read_environment();
  if (settings.gpu_memory_gib > 0 && !session.config().listTests() && pmpp_grader::gpu_present()) {
    const std::size_t left = pmpp_grader::hold_all_but(static_cast<std::size_t>(settings.gpu_memory_gib * (1 << 30)));
    std::cerr << "GPU memory left free for this run: " << (left >> 20) << " MiB (PMPP_GPU_MEMORY_GIB)" << std::endl;
  }

  // Create this process's CUDA context while the worker starts (each takes a moment); not for a listing.
  std::thread warm_up([listing = session.config().listTests()] {
    if (!listing && pmpp_grader::gpu_present()) cudaFree(nullptr);
  });
  const int status = session.run();
  warm_up.join();
  if (!facts.empty()) pmpp_grader::write_facts(facts);
  if (!pmpp_grader::misbehaviour().empty()) {
    std::cout << "pmpp-grader: " << pmpp_grader::misbehaviour() << std::endl;
    return pmpp_grader::kMisbehavedExitStatus;
  }
  return pmpp_test::exit_status(status);
}
