// Holding a worker still between timed calls (see hold_still.hpp).
#include "hold_still.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

namespace pmpp_grader {
namespace {

constexpr std::chrono::seconds kFreezeWait{1};

bool write_file(const std::string& path, const char* text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

/// Whether the cgroup at @p folder reports "frozen 1" in its cgroup.events.
bool reports_frozen(const std::string& folder) {
  std::ifstream in(folder + "/cgroup.events");
  for (std::string key, value; in >> key >> value;)
    if (key == "frozen") return value == "1";
  return false;
}

}  // namespace

bool HoldStill::hold() {
  if (group_ <= 0) return false;
  held_ = true;
  kill(-group_, SIGSTOP);
  if (cgroup_.empty()) return true;
  if (!write_file(cgroup_ + "/cgroup.freeze", "1")) return false;
  // Freezing is asynchronous: a thread inside a system call is frozen when it leaves it.
  const auto until = std::chrono::steady_clock::now() + kFreezeWait;
  while (!reports_frozen(cgroup_)) {
    if (std::chrono::steady_clock::now() > until) return false;
    usleep(20);
  }
  return true;
}

void HoldStill::release() {
  if (!held_) return;
  held_ = false;
  if (!cgroup_.empty()) write_file(cgroup_ + "/cgroup.freeze", "0");
  kill(-group_, SIGCONT);
}

}  // namespace pmpp_grader
