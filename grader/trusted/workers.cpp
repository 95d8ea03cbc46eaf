// The workers of the test case being run, and what a remote call does with their answers (see
// workers.hpp and remote_call.hpp).
#include "workers.hpp"

#include <catch2/catch_test_macros.hpp>
#include <cuda_runtime_api.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>

#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "remote_call.hpp"
#include "shareable_memory.hpp"
#include "worker_process.hpp"

extern char** environ;

namespace pmpp_grader {
namespace {

/// What the code under test printed, as much as the report shows.
constexpr std::size_t kOutputLimit = 16 * 1024;

std::unique_ptr<WorkerProcess> code_under_test, reference;
bool code_under_test_retired = false;
Side current_side = Side::code_under_test;
double seconds_in_calls = 0;
std::string misbehaved;
bool code_under_test_ran_short = false;  // it reported cudaErrorMemoryAllocation
std::string feedback_fact;  // one line of JSON, from a feedback case

/// The worker behind the profiler, while a ProfiledWorker is in scope, and the side it stands for.
std::unique_ptr<WorkerProcess> profiled;
Side profiled_side = Side::code_under_test;

/// A profiler's report and a worker's output together: far more than the output a report shows.
constexpr std::size_t kProfiledOutputLimit = 256 * 1024;

void note_misbehaviour(const std::string& reason) {
  if (misbehaved.empty()) misbehaved = reason;
}

/// A pmpp::CudaError raised in the worker, with its text.
class RemoteCudaError : public pmpp::CudaError {
 public:
  RemoteCudaError(int code, std::string text)
      : pmpp::CudaError(static_cast<cudaError_t>(code), "", "", 0), text_(std::move(text)) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

/// Thrown by a remote call when its worker is gone (the case has already failed).
class WorkerLost : public std::exception {
 public:
  explicit WorkerLost(std::string text) : text_(std::move(text)) {}
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  std::string text_;
};

[[noreturn]] void rethrow(const Outcome& o) {
  const std::string& m = o.message;
  if (o.type == "std::invalid_argument") throw std::invalid_argument(m);
  if (o.type == "std::domain_error") throw std::domain_error(m);
  if (o.type == "std::length_error") throw std::length_error(m);
  if (o.type == "std::out_of_range") throw std::out_of_range(m);
  if (o.type == "std::logic_error") throw std::logic_error(m);
  if (o.type == "std::range_error") throw std::range_error(m);
  if (o.type == "std::overflow_error") throw std::overflow_error(m);
  if (o.type == "std::underflow_error") throw std::underflow_error(m);
  if (o.type == "std::runtime_error") throw std::runtime_error(m);
  if (o.type == "std::bad_alloc") throw std::bad_alloc();
  if (o.type == "pmpp::CudaError") throw RemoteCudaError(o.cuda_code, m);
  throw std::runtime_error("the code under test threw " + (o.type.empty() ? std::string("an exception") : o.type) +
                           ": " + m);
}

/// Run @p command to its end (at most @p timeout_s seconds); false if it failed or took too long.
bool run_to_end(const std::vector<std::string>& command, double timeout_s) {
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return false;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void print_output(const WorkerProcess& worker) {
  const std::size_t total = worker.output_bytes();
  if (total == 0) return;
  std::cout << "---- what the code under test printed (" << total << " bytes"
            << (total > kOutputLimit ? ", the first " + std::to_string(kOutputLimit) + " shown" : std::string())
            << ") ----\n";
  // Every line is marked, so that nothing it prints can pass for the test's own output.
  std::string text = worker.output();
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::cout << "  | " << text.substr(start, end - start) << '\n';
    start = end + 1;
  }
  std::cout << "---- end of what it printed ----\n" << std::flush;
}

WorkerProcess* worker_for_calls(std::string* why_none) {
  if (profiled && current_side == profiled_side) return profiled.get();
  if (current_side == Side::reference) {
    if (!reference && !settings().reference_worker.empty())
      reference = std::make_unique<WorkerProcess>(std::vector<std::string>{settings().reference_worker},
                                                  settings().timeout_s, kOutputLimit);
    if (!reference) *why_none = "no reference worker was given (--reference-worker)";
    return reference.get();
  }
  if (code_under_test_retired) *why_none = "the code under test was stopped for the speed comparison";
  else if (!code_under_test) *why_none = "no worker was given (--worker): ctest and scripts/grade give one";
  return code_under_test_retired ? nullptr : code_under_test.get();
}

}  // namespace

bool gpu_present() {
  static const bool present = pmpp::gpu_available();
  return present;
}

Settings& settings() {
  static Settings s;
  return s;
}

void Settings::read_environment() {
  if (const char* text = std::getenv("PMPP_SANDBOX")) sandbox = split_lines(text);
  if (const char* text = std::getenv("PMPP_CLEANUP")) clean_up = split_lines(text);
  if (const char* text = std::getenv("PMPP_PROFILER")) profiler = split_lines(text);
  if (const char* text = std::getenv("PMPP_FREEZE_CGROUP")) freeze_cgroup = text;
  if (const char* text = std::getenv("PMPP_CASE_ALONE")) alone = std::string(text) == "1";
  if (const char* text = std::getenv("PMPP_GPU_MEMORY_GIB")) gpu_memory_gib = std::max(0.0, std::atof(text));
  if (const char* text = std::getenv("PMPP_WORKER_TIMEOUT")) {
    const double seconds = std::atof(text);
    if (seconds > 0) timeout_s = seconds;
  }
}

void begin_case() {
  code_under_test.reset();
  code_under_test_retired = false;
  current_side = Side::code_under_test;
  if (settings().worker.empty()) return;
  std::vector<std::string> command = settings().sandbox;
  command.push_back(settings().worker);
  code_under_test =
      std::make_unique<WorkerProcess>(command, settings().timeout_s, kOutputLimit, settings().freeze_cgroup);
  if (code_under_test->lost()) note_misbehaviour("the code under test failed: " + code_under_test->lost_reason());
}

void end_case() {
  if (reference) reference->stop();
  reference.reset();
  if (code_under_test) {
    code_under_test->stop();
    print_output(*code_under_test);
  }
  code_under_test.reset();
}

UseSide::UseSide(Side side) : previous_(current_side) { current_side = side; }
UseSide::~UseSide() { current_side = previous_; }

bool reference_available() { return !settings().reference_worker.empty(); }

void retire_code_under_test() {
  if (code_under_test) {
    code_under_test->stop();
    print_output(*code_under_test);
  }
  code_under_test.reset();
  code_under_test_retired = true;
  if (!settings().clean_up.empty() && !run_to_end(settings().clean_up, 60))
    throw std::runtime_error("grader: the clean-up command failed, so the speed comparison cannot be trusted");
}

bool hold_still_until_next_call() {
  std::string why_none;
  WorkerProcess* worker = worker_for_calls(&why_none);
  return worker != nullptr && worker->hold_still();
}

void let_go_of_worker() {
  std::string why_none;
  if (WorkerProcess* worker = worker_for_calls(&why_none)) worker->let_go();
}

double call_seconds() { return seconds_in_calls; }
void reset_call_seconds() { seconds_in_calls = 0; }

const std::string& misbehaviour() { return misbehaved; }

bool code_under_test_holds_gpu_memory(std::size_t bytes) {
  if (!settings().alone || !code_under_test || !gpu_present()) return false;
  retire_code_under_test();
  // Its memory is freed as its process ends, which the clean-up waited for; give the driver a moment.
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess && free_bytes >= bytes) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void write_facts(const std::string& path) {
  std::ofstream out(path);
  const auto line = [&](const char* name, std::string text) {
    std::replace_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
    out << name << '\t' << text << '\n';
  };
  if (!misbehaved.empty()) line("misbehaved", misbehaved);
  if (!feedback_fact.empty()) line("feedback", feedback_fact);
  if (allocation_ran_short()) line("short_of_gpu_memory", "an allocation of the test failed");
  else if (code_under_test_ran_short) line("short_of_gpu_memory", "the code under test reported running out");
}

void note_feedback(const std::string& json_line) { feedback_fact = json_line; }

ProfiledWorker::ProfiledWorker(Side side, double timeout_s) : previous_(current_side) {
  std::vector<std::string> command;
  if (side == Side::code_under_test) {
    command = settings().sandbox;
    // The profiler talks to the process it profiles over TCP: an isolated sandbox brings up its
    // namespace's own loopback for it, which reaches nothing outside the case. And the profiler starts
    // the worker by its path, which the sandbox hides: it is handed the worker by descriptor instead.
    if (std::find(command.begin(), command.end(), "--isolate") != command.end())
      command.insert(command.begin() + 1, {"--loopback", "--reach-by-fd", settings().worker});
  }
  command.insert(command.end(), settings().profiler.begin(), settings().profiler.end());
  command.push_back(side == Side::code_under_test ? settings().worker : settings().reference_worker);
  profiled = std::make_unique<WorkerProcess>(command, timeout_s, kProfiledOutputLimit);
  profiled_side = side;
  current_side = side;
  if (profiled->lost()) failed_ = profiled->lost_reason();
}

std::string ProfiledWorker::finish(double grace_s) {
  if (!profiled) return "";
  profiled->stop(grace_s);
  std::string text = profiled->output();
  profiled.reset();
  current_side = previous_;
  return text;
}

ProfiledWorker::~ProfiledWorker() {
  if (profiled) profiled->stop(0);
  profiled.reset();
  current_side = previous_;
}

void perform(const char* function, const Request& request) {
  // The test's own device work (a poisoning memset, say) must be complete before the worker looks.
  if (gpu_present()) CUDA_CHECK(cudaDeviceSynchronize());
  std::string why_none;
  WorkerProcess* worker = worker_for_calls(&why_none);
  if (worker == nullptr) {
    FAIL_CHECK("grader: cannot call " << function << ": " << why_none);
    throw WorkerLost(why_none);
  }
  const Outcome outcome = worker->call(request);
  seconds_in_calls += outcome.seconds;
  if (worker == profiled.get()) {  // its own word, and never the case's verdict
    if (outcome.kind == Outcome::Kind::returned) return;
    throw ProfiledRunFailed(std::string(function) + ": " +
                            (outcome.message.empty() ? std::string("it failed") : outcome.message));
  }
  if (current_side == Side::code_under_test && outcome.cuda_code == cudaErrorMemoryAllocation &&
      (outcome.kind == Outcome::Kind::cuda_error || outcome.kind == Outcome::Kind::threw))
    code_under_test_ran_short = true;
  switch (outcome.kind) {
    case Outcome::Kind::returned:
      return;
    case Outcome::Kind::threw:
      rethrow(outcome);
    case Outcome::Kind::cuda_error:
      throw RemoteCudaError(outcome.cuda_code, std::string(function) + ": " + outcome.message);
    case Outcome::Kind::bad_request:
      FAIL_CHECK("grader: the worker could not decode the call to " << function << ": " << outcome.message);
      throw WorkerLost(outcome.message);
    case Outcome::Kind::lost:
      break;
  }
  const bool solution = current_side == Side::reference;
  const std::string who = solution ? "the solution" : "the code under test";
  if (!solution) note_misbehaviour(who + " failed in " + function + ": " + outcome.message);
  FAIL_CHECK(who << " failed in " << function << ": " << outcome.message);
  throw WorkerLost(who + " failed: " + outcome.message);
}

}  // namespace pmpp_grader
