// The grader's remote calls, tested against a worker that misbehaves on request: what crosses is what
// was sent, exceptions keep their type, and a worker that crashes, exits, hangs, floods its output or
// garbles the protocol is caught and named, without harm to the test process. Only the cases that pass
// device buffers need a GPU.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "floor.hpp"
#include "gpu_test.hpp"
#include "pmpp/device_buffer.hpp"
#include "remote_call.hpp"
#include "shareable_memory.hpp"
#include "selftest.hpp"
#include "worker_process.hpp"
#include "workers.hpp"

using namespace pmpp_grader_selftest;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using pmpp_grader::Outcome;
using pmpp_grader::WorkerProcess;

namespace {

/// A worker of the test's own (not the case's), so a misbehaviour under test fails nothing else.
WorkerProcess own_worker(double timeout_s = 30, std::size_t output_limit = 4096) {
  return WorkerProcess({pmpp_grader::settings().worker}, timeout_s, output_limit);
}

Outcome misbehave_in(WorkerProcess& worker, int how) {
  return worker.call(pmpp_grader::request_for("pmpp_grader_selftest::misbehave", how));
}

/// Start a worker whose static constructors misbehave as @p how says (PMPP_SELFTEST_START).
std::string start_failure(const char* how, double timeout_s) {
  setenv("PMPP_SELFTEST_START", how, 1);
  WorkerProcess worker({pmpp_grader::settings().worker}, timeout_s, 4096);
  unsetenv("PMPP_SELFTEST_START");
  CHECK(worker.lost());
  return worker.lost_reason();
}

/// Whether what @p worker printed grows past @p bytes within two seconds.
bool prints_past(const WorkerProcess& worker, std::size_t bytes) {
  for (int i = 0; i < 200 && worker.output_bytes() <= bytes; ++i) usleep(10'000);
  return worker.output_bytes() > bytes;
}

/// The state letters of every thread of process @p pid, as /proc shows them ("T": stopped).
std::string thread_states(pid_t pid) {
  std::string states;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& thread : std::filesystem::directory_iterator(tasks)) {
    std::ifstream in(thread.path() / "stat");
    std::string line;
    std::getline(in, line);
    if (const std::size_t name_end = line.rfind(") "); name_end != std::string::npos) states += line[name_end + 2];
  }
  return states;
}

/// Leave something of @p worker ticking (@p how), hold it still, and check that it prints nothing
/// until the next call lets it go.
void check_held_until_next_call(WorkerProcess& worker, int how) {
  REQUIRE(misbehave_in(worker, how).kind == Outcome::Kind::returned);
  REQUIRE(prints_past(worker, 0));  // it ticks
  REQUIRE(worker.hold_still());
  usleep(100'000);  // what it printed before it stopped is read
  const std::size_t held = worker.output_bytes();
  usleep(200'000);
  CHECK(worker.output_bytes() == held);  // about 200 ticks, had it not been held
  CHECK(misbehave_in(worker, kReturn).kind == Outcome::Kind::returned);
  CHECK(prints_past(worker, held));
  worker.stop();
}

}  // namespace

TEST_CASE("numbers, host arrays and pointers arrive exactly as sent", "[host]") {
  const std::vector<float> values{1.5f, -2.0f, 3.1f};
  const float x = 0.1f;
  const double d = -2.5e300;
  const auto* somewhere = reinterpret_cast<const float*>(std::uintptr_t{0x1234});
  std::ostringstream want;
  want << std::hexfloat << "i=-7 j=-1099511627776 k=8589934592 x=" << x << " d=" << d << " b=1 values=" << values[0]
       << "," << values[1] << "," << values[2] << " device=" << static_cast<const void*>(somewhere);
  CHECK_THROWS_WITH(echo(-7, -(std::int64_t{1} << 40), std::size_t{1} << 33, x, d, true, values.data(), values.size(),
                         somewhere),
                    want.str());
  CHECK_THROWS_WITH(echo(0, 0, 0, 0.0f, 0.0, false, nullptr, 0, nullptr),
                    ContainsSubstring("values=null device=0") || ContainsSubstring("values=null device=(nil)"));
}

TEST_CASE("an exception comes back as the standard type it is, with its message", "[host]") {
  CHECK_THROWS_AS(misbehave(kThrowInvalidArgument), std::invalid_argument);
  CHECK_THROWS_WITH(misbehave(kThrowInvalidArgument), "bad argument");
  CHECK_THROWS_AS(misbehave(kThrowOutOfRange), std::out_of_range);
  CHECK_THROWS_AS(misbehave(kThrowDerived), std::invalid_argument);  // the standard base it derives from
  CHECK_THROWS_WITH(misbehave(kThrowCustom), ContainsSubstring("Custom") && ContainsSubstring("custom"));
  CHECK_THROWS_WITH(misbehave(kThrowInt), ContainsSubstring("not a std::exception"));
  CHECK_NOTHROW(misbehave(kReturn));  // and the worker still answers
}

TEST_CASE("a worker that crashes, exits or aborts during a call is lost, and says how", "[host]") {
  for (const auto& [how, reason] : {std::pair{kCrash, "SIGSEGV"}, std::pair{kExitZero, "exited with status 0"},
                                    std::pair{kAbort, "SIGABRT"}}) {
    WorkerProcess worker = own_worker();
    REQUIRE_FALSE(worker.lost());
    const Outcome outcome = misbehave_in(worker, how);
    CHECK(outcome.kind == Outcome::Kind::lost);
    CHECK_THAT(outcome.message, ContainsSubstring(reason));
    CHECK(misbehave_in(worker, kReturn).kind == Outcome::Kind::lost);  // and stays lost
  }
}

TEST_CASE("the empty call returns, and takes no arguments", "[host]") {
  WorkerProcess worker = own_worker();
  CHECK(worker.call(pmpp_grader::request_for(pmpp_grader::kEmptyCall)).kind == Outcome::Kind::returned);
  const Outcome with_argument = worker.call(pmpp_grader::request_for(pmpp_grader::kEmptyCall, 1));
  CHECK(with_argument.kind == Outcome::Kind::bad_request);
  CHECK_FALSE(worker.lost());
}

TEST_CASE("a worker held still runs nothing until its next call lets it go", "[host]") {
  WorkerProcess worker = own_worker();
  check_held_until_next_call(worker, kTickInBackground);
}

TEST_CASE("a worker is held still by the time hold_still returns, not some moment after", "[host]") {
  // A stop signal takes effect only when one of the worker's threads next runs, so right after kill()
  // its threads are usually still running or asleep: holding must wait until every one has stopped.
  WorkerProcess worker = own_worker();
  for (int i = 0; i < 20; ++i) {
    REQUIRE(misbehave_in(worker, kReturn).kind == Outcome::Kind::returned);  // lets it go
    REQUIRE(worker.hold_still());
    const std::string states = thread_states(worker.pid());
    INFO("thread states: " << states);
    REQUIRE_FALSE(states.empty());
    CHECK(states.find_first_not_of('T') == std::string::npos);
  }
}

TEST_CASE("a process that left the worker's group is held still through the worker's cgroup", "[host]") {
  // As grade runs a worker: in a cgroup v2 of its own (which needs root and a writable cgroup v2).
  std::string mount;
  for (const char* place : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"})
    if (access((std::string(place) + "/cgroup.procs").c_str(), W_OK) == 0 &&
        access((std::string(place) + "/cgroup.subtree_control").c_str(), F_OK) == 0)
      mount = place;
  if (mount.empty() || geteuid() != 0) SKIP("needs root and a writable cgroup v2");
  const std::string cgroup = mount + "/pmpp-selftest-" + std::to_string(getpid());
  REQUIRE(mkdir(cgroup.c_str(), 0755) == 0);
  {
    WorkerProcess worker({"/bin/sh", "-c", "echo $$ > \"$0\"/cgroup.procs && exec \"$1\"", cgroup,
                          pmpp_grader::settings().worker},
                         30, 1 << 20, cgroup);
    REQUIRE_FALSE(worker.lost());
    check_held_until_next_call(worker, kTickInChildAway);
  }
  // The child outlived the worker, as it would outlive a case: grade's clean-up kills what is left.
  std::ofstream(cgroup + "/cgroup.kill") << "1";
  for (int i = 0; i < 100 && rmdir(cgroup.c_str()) != 0; ++i) usleep(10'000);
}

TEST_CASE("a cheat that works before the clock is flagged, and held still it works inside the clock", "[host]") {
  // The untimed preparation of a timed run is played by writing "poison" into a file and waiting
  // 300 ms; the cheat's thread works 50 ms when it reads "poison" (selftest.hpp), and the floor of
  // that work is set at 40 ms. The margins are wide because a busy machine can delay any call by
  // milliseconds, and the call's own cost is the least of several empty calls, as a speed trial takes it.
  char name[] = "/tmp/pmpp-selftest-XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  close(fd);
  const std::string path = name;
  const auto say = [&](const char* word) { std::ofstream(path) << word; };
  WorkerProcess worker = own_worker();
  const auto timed_call = [&] {
    const Outcome o = worker.call(pmpp_grader::request_for("pmpp_grader_selftest::answer_before_the_clock",
                                                           pmpp_grader::arguments::host(path.c_str(), path.size() + 1),
                                                           path.size() + 1));
    REQUIRE(o.kind == Outcome::Kind::returned);
    return o.seconds * 1e3;
  };
  say("answer");
  timed_call();  // leaves its thread
  double empty_ms = 1e9;
  for (int i = 0; i < 10; ++i)
    empty_ms = std::min(empty_ms, worker.call(pmpp_grader::request_for(pmpp_grader::kEmptyCall)).seconds * 1e3);
  pmpp_grader::Floor floor;
  floor.ms = 40;

  say("poison");
  usleep(300'000);
  const double free_ms = timed_call();
  INFO("left running: " << free_ms << " ms, an empty call " << empty_ms << " ms");
  CHECK(pmpp_grader::check_physics(free_ms - empty_ms, floor).flagged);

  REQUIRE(worker.hold_still());
  say("poison");
  usleep(300'000);
  const double held_ms = timed_call();
  INFO("held still: " << held_ms << " ms");
  CHECK(held_ms >= 50);
  CHECK_FALSE(pmpp_grader::check_physics(held_ms - empty_ms, floor).flagged);
  worker.stop();
  unlink(path.c_str());
}

TEST_CASE("a worker that does not return is stopped at the time limit", "[host]") {
  WorkerProcess worker = own_worker(1.0);
  REQUIRE_FALSE(worker.lost());
  const Outcome outcome = misbehave_in(worker, kHang);
  CHECK(outcome.kind == Outcome::Kind::lost);
  CHECK_THAT(outcome.message, ContainsSubstring("did not return within 1 s"));
  CHECK(outcome.seconds >= 1.0);
  CHECK(outcome.seconds < 10.0);
}

TEST_CASE("a reply that breaks the protocol loses the worker", "[host]") {
  for (int how : {kMalformedReply, kOversizedReply}) {
    WorkerProcess worker = own_worker();
    const Outcome outcome = misbehave_in(worker, how);
    CHECK(outcome.kind == Outcome::Kind::lost);
    CHECK_THAT(outcome.message, ContainsSubstring("protocol"));
  }
}

TEST_CASE("a worker that fails before its first call is lost", "[host]") {
  CHECK_THAT(start_failure("exit", 30), ContainsSubstring("ended before it could be called"));
  CHECK_THAT(start_failure("sleep", 1), ContainsSubstring("did not start within 1 s"));
  CHECK_THAT(start_failure("garbage", 30), ContainsSubstring("did not start properly"));
}

TEST_CASE("what a worker prints is kept up to the limit, and counted", "[host]") {
  WorkerProcess worker = own_worker(30, 1000);
  CHECK(misbehave_in(worker, kPrintMegabyte).kind == Outcome::Kind::returned);
  worker.stop();
  CHECK(worker.output_bytes() == 1024u * 1024u);
  CHECK(worker.output().size() == 1000u);
}

TEST_CASE("no descriptor of the test process reaches the worker", "[host]") {
  // A pipe that is not close-on-exec, as a verdict pipe handed down to the test process could be, at
  // a high number. The worker names what each of its descriptors is: its own (those the CUDA runtime
  // keeps open) may be there, this pipe must not.
  int ends[2];
  REQUIRE(pipe(ends) == 0);
  const int inherited = fcntl(ends[1], F_DUPFD, 20);
  REQUIRE(inherited >= 20);
  char target[64] = {};
  REQUIRE(readlink(("/proc/self/fd/" + std::to_string(inherited)).c_str(), target, sizeof target - 1) > 0);
  const std::string the_pipe = target;  // pipe:[inode], the same for both ends
  REQUIRE_THAT(the_pipe, StartsWith("pipe:["));
  WorkerProcess worker = own_worker();
  const Outcome outcome = misbehave_in(worker, kListDescriptors);
  for (int fd : {ends[0], ends[1], inherited}) close(fd);
  CHECK(outcome.kind == Outcome::Kind::threw);
  CHECK_THAT(outcome.message, StartsWith("open descriptors above 5:"));
  CHECK_THAT(outcome.message, !ContainsSubstring(the_pipe));
}

TEST_CASE("the worker writes the test's own device buffer, at an offset into the allocation", "[gpu]") {
  PMPP_REQUIRE_GPU();
  pmpp::DeviceBuffer<float> buffer(1000);
  buffer.poison();
  fill(buffer.data() + 100, 50, 2.5f);
  const std::vector<float> host = buffer.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) {
    INFO("element " << i);
    if (i >= 100 && i < 150) CHECK(host[i] == 2.5f);
    else CHECK(std::isnan(host[i]));
  }
}

TEST_CASE("a buffer kept from call to call and one made anew for every call both reach the worker", "[gpu]") {
  PMPP_REQUIRE_GPU();
  // A check that keeps its input and output but uploads a new filter for every run does this: the
  // freed filter's memory may come back at the same address as a new allocation, which the worker
  // must map anew (it was told the old one is gone).
  pmpp::DeviceBuffer<float> kept(1000);
  for (int call = 0; call < 8; ++call) {
    INFO("call " << call);
    pmpp::DeviceBuffer<float> fresh(100);
    fill(kept.data(), 1000, static_cast<float>(call));
    fill(fresh.data(), 100, call + 0.5f);
    CHECK(kept.to_host() == std::vector<float>(1000, static_cast<float>(call)));
    CHECK(fresh.to_host() == std::vector<float>(100, call + 0.5f));
  }
}

TEST_CASE("an allocation mostly of one repeated block reaches the worker mapped as in the test", "[gpu]") {
  PMPP_REQUIRE_GPU();
  // 64 blocks of addresses; blocks 0, 40 and 41 have memory of their own, every other one is the same.
  constexpr std::size_t kBlock = std::size_t{2} << 20;  // the granularity of every GPU tested
  pmpp_grader::MostlyRepeated made;
  REQUIRE(pmpp_grader::allocate_mostly_repeated(&made, 64 * kBlock, 1, {{0, 100}, {40 * kBlock + 5, kBlock}}) ==
          cudaSuccess);
  REQUIRE(made.block == kBlock);
  CHECK(made.physical == 4 * kBlock);
  CHECK(made.repeated_at == kBlock);
  float* base = static_cast<float*>(made.base);
  const std::size_t block = made.block / sizeof(float);
  fill(base, block, 1.0f);                  // its own
  fill(base + 7 * block + 10, 5, 2.0f);     // the repeated block, seen through block 7
  fill(base + 41 * block + 3, 1, 3.0f);     // its own
  const auto read = [&](std::size_t at) {
    float value = 0;
    CUDA_CHECK(cudaMemcpy(&value, base + at, sizeof value, cudaMemcpyDeviceToHost));
    return value;
  };
  CHECK(read(5) == 1.0f);
  for (std::size_t b : {1, 7, 39, 42, 63}) {
    INFO("block " << b);
    CHECK(read(b * block + 12) == 2.0f);  // every repeated block shows the worker's write
  }
  CHECK(read(40 * block + 12) != 2.0f);
  CHECK(read(41 * block + 3) == 3.0f);
  CHECK(read(42 * block + 3) != 3.0f);
  CUDA_CHECK(cudaFree(base));
}

// Run only by the CTest test grader.a_lost_worker_fails_the_case, which expects this case to FAIL
// (and the test process to say why), although the test swallows every exception.
TEST_CASE("a lost worker fails the case whatever the test does", "[.][lost_worker]") {
  CHECK_THROWS(misbehave(kCrash));
}
