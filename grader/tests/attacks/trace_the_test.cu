// attack: before main(), take hold of its own test process (which keeps the verdict) and every other
//         process it sees, as a debugger would: attach with ptrace, read and write their memory with
//         process_vm_readv/writev, open /proc/<pid>/mem for writing. Rewriting the verdict in the test
//         process's memory would pass every case. The test process belongs to another user, and is
//         not dumpable besides (what holds where grade does not run as root), so it reaches none;
//         it prints how many processes it tried and how often it got in, and keeps its points.
// exercise: max_reduction
// base: solution
// earns: as the solution
#include <sys/ptrace.h>
#include <sys/uio.h>

#include <cstdint>
namespace {
struct TraceTheTest {
  /// The start of @p pid's first mapping, if its maps can be read; else an address where a program
  /// usually lies (a read or write there still proves the way in, wherever it lands).
  static std::uintptr_t some_address(const std::string& pid) {
    const std::string maps = attack::read_file("/proc/" + pid + "/maps", 4096);
    return maps.empty() ? 0x400000 : std::strtoull(maps.c_str(), nullptr, 16);
  }

  /// How many of the ways in worked on @p pid (0 to 4; a write is tried only where a read worked, and
  /// writes back the byte read: the same permission, and no harm where it is given).
  static int reached(const std::string& pid) {
    const pid_t target = static_cast<pid_t>(std::atoi(pid.c_str()));
    int ways = 0;
    if (ptrace(PTRACE_SEIZE, target, nullptr, nullptr) == 0) {
      ++ways;
      ptrace(PTRACE_DETACH, target, nullptr, nullptr);
    }
    char byte = 0;
    iovec mine{&byte, 1}, theirs{reinterpret_cast<void*>(some_address(pid)), 1};
    if (process_vm_readv(target, &mine, 1, &theirs, 1, 0) == 1) {
      ++ways;
      ways += process_vm_writev(target, &mine, 1, &theirs, 1, 0) == 1;  // the byte it read, unchanged
    }
    const int mem = open(("/proc/" + pid + "/mem").c_str(), O_RDWR);
    if (mem >= 0) {
      ++ways;
      close(mem);
    }
    return ways;
  }

  TraceTheTest() {
    int tried = 0, got_in = 0;
    for (const std::string& pid : attack::numbered("/proc")) {
      if (std::atoi(pid.c_str()) == getpid()) continue;
      ++tried;
      got_in += reached(pid);
    }
    std::printf("processes traced or written: %d ways in, %d processes tried\n", got_in, tried);
    std::fflush(stdout);
  }
} trace_the_test;
}  // namespace
