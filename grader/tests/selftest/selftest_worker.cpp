// The pretend exercise's code under test: it does, on request, what a hostile or broken submission
// would. PMPP_SELFTEST_START=exit|sleep|garbage makes it misbehave before main(), as a static
// constructor can.
#include <dirent.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "frame_io.hpp"
#include "selftest.hpp"

namespace pmpp_grader_selftest {
namespace {

struct MisbehaveAtStart {
  MisbehaveAtStart() {
    const char* how = std::getenv("PMPP_SELFTEST_START");
    if (how == nullptr) return;
    if (std::strcmp(how, "exit") == 0) std::_Exit(0);
    if (std::strcmp(how, "sleep") == 0)
      for (;;) pause();
    if (std::strcmp(how, "garbage") == 0) (void)!write(pmpp_grader::kReplyFd, "nonsense", 8);
  }
} misbehave_at_start;

struct Derived : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct Custom : std::exception {
  const char* what() const noexcept override { return "custom"; }
};

}  // namespace

void echo(int i, std::int64_t j, std::size_t k, float x, double d, bool b, const float* values, std::size_t count,
          const float* device_pointer) {
  std::ostringstream out;
  out << std::hexfloat << "i=" << i << " j=" << j << " k=" << k << " x=" << x << " d=" << d << " b=" << b << " values=";
  if (values == nullptr) out << "null";
  for (std::size_t n = 0; values != nullptr && n < count; ++n) out << (n ? "," : "") << values[n];
  out << " device=" << device_pointer;
  throw std::runtime_error(out.str());
}

void misbehave(int how) {
  switch (how) {
    case kReturn: return;
    case kThrowInvalidArgument: throw std::invalid_argument("bad argument");
    case kThrowOutOfRange: throw std::out_of_range("out of range");
    case kThrowDerived: throw Derived("derived");
    case kThrowCustom: throw Custom();
    case kThrowInt: throw 42;
    case kCrash: std::raise(SIGSEGV); return;
    case kExitZero: std::exit(0);
    case kAbort: std::abort();
    case kHang:
      for (;;) pause();
    case kPrintMegabyte: {
      const std::string line(1023, 'x');
      for (int n = 0; n < 1024; ++n) std::printf("%s\n", line.c_str());
      std::fflush(stdout);
      return;
    }
    case kMalformedReply: pmpp_grader::write_frame(pmpp_grader::kReplyFd, "?"); return;
    case kOversizedReply: {
      const std::uint32_t length = pmpp_grader::kMaxFrame + 1;
      pmpp_grader::write_all(pmpp_grader::kReplyFd, &length, sizeof length);
      return;
    }
    case kListDescriptors: {
      std::string open;
      DIR* fds = opendir("/proc/self/fd");
      while (dirent* entry = fds ? readdir(fds) : nullptr) {
        const int fd = std::atoi(entry->d_name);
        if (fd <= pmpp_grader::kMemoryFd || fd == dirfd(fds)) continue;
        char target[256] = {};
        const std::string link = std::string("/proc/self/fd/") + entry->d_name;
        const ssize_t length = readlink(link.c_str(), target, sizeof target - 1);
        open += " " + std::to_string(fd) + "=" + (length > 0 ? std::string(target, length) : std::string("?"));
      }
      if (fds) closedir(fds);
      throw std::runtime_error("open descriptors above 5:" + (open.empty() ? std::string(" none") : open));
    }
    case kTickInBackground:
      std::thread([] {
        for (;;) {
          (void)!write(1, "tick\n", 5);
          usleep(1000);
        }
      }).detach();
      return;
    case kTickInChildAway:
      if (fork() == 0) {
        setsid();  // out of the worker's process group: a signal to the group misses it
        for (;;) {
          (void)!write(1, "tick\n", 5);
          usleep(1000);
        }
      }
      return;
  }
  throw std::logic_error("no such behaviour");
}

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

void answer_before_the_clock(const char* path, std::size_t length) {
  const std::string file(path, strnlen(path, length));
  static bool watching = false;
  if (!watching) {
    watching = true;
    std::thread([file] {
      for (;;) {
        if (file_text(file) == "poison") {
          usleep(50'000);  // its work
          std::ofstream(file) << "answer";
        }
        // No pause: a cheat watches as closely as it can, and so acts in the moment a stop signal
        // has been sent but not yet taken effect.
      }
    }).detach();
  }
  while (file_text(file) != "answer") usleep(50);
}

void fill(float* device, std::size_t n, float value) {
  const std::vector<float> host(n, value);
  const cudaError_t status = cudaMemcpy(device, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  if (status != cudaSuccess) throw std::runtime_error(cudaGetErrorString(status));
}

}  // namespace pmpp_grader_selftest
