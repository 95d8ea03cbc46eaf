// Holding a worker still between timed calls (see hold_still.hpp).
#include "hold_still.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pmpp_grader {
namespace {

// How long holding waits for every thread to stop, or for the cgroup to report frozen.
constexpr std::chrono::seconds kHoldWait{1};

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

/// The numeric entries of the folder @p path (processes in /proc, threads in /proc/<pid>/task).
std::vector<std::string> numbered_entries(const std::string& path) {
  std::vector<std::string> names;
  if (DIR* dir = opendir(path.c_str())) {
    while (const dirent* entry = readdir(dir))
      if (entry->d_name[0] >= '1' && entry->d_name[0] <= '9') names.emplace_back(entry->d_name);
    closedir(dir);
  }
  return names;
}

/// The fields of a /proc stat file after the command name (which may hold spaces and parentheses):
/// the state letter first, then the parent, then the process group. Empty when it is gone.
std::vector<std::string> stat_fields(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const std::size_t name_end = line.rfind(')');
  std::vector<std::string> fields;
  if (name_end == std::string::npos) return fields;
  std::istringstream rest(line.substr(name_end + 1));
  for (std::string field; fields.size() < 3 && rest >> field;) fields.push_back(field);
  return fields;
}

/// The processes in process group @p group, as /proc names them.
std::vector<std::string> members_of(pid_t group) {
  std::vector<std::string> members;
  for (const std::string& pid : numbered_entries("/proc")) {
    const std::vector<std::string> fields = stat_fields("/proc/" + pid + "/stat");
    if (fields.size() == 3 && std::atol(fields[2].c_str()) == group) members.push_back(pid);
  }
  return members;
}

/// Whether every thread of the processes @p members has stopped (or ended).
bool all_stopped(const std::vector<std::string>& members) {
  for (const std::string& pid : members) {
    const std::string tasks = "/proc/" + pid + "/task";
    for (const std::string& tid : numbered_entries(tasks)) {
      const std::vector<std::string> fields = stat_fields(tasks + "/" + tid + "/stat");
      if (!fields.empty() && fields[0] != "T" && fields[0] != "t" && fields[0] != "Z" && fields[0] != "X")
        return false;
    }
  }
  return true;
}

/// Wait until @p done says so, at most kHoldWait; false if it never did.
template <typename Check>
bool wait_for(Check done) {
  const auto until = std::chrono::steady_clock::now() + kHoldWait;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    usleep(20);
  }
  return true;
}

}  // namespace

bool HoldStill::hold() {
  if (group_ <= 0) return false;
  held_ = true;
  kill(-group_, SIGSTOP);
  if (cgroup_.empty()) {
    // A stop signal is acted on when a thread next runs: one thread of each process takes it and only
    // then stops the others, so on a busy machine a thread can go on working for milliseconds after
    // kill() returns. Held means every thread seen stopped. (Processes cannot join the group meanwhile:
    // a fork with a stop pending is undone and retried after.)
    const std::vector<std::string> members = members_of(group_);
    return wait_for([&] { return all_stopped(members); });
  }
  if (!write_file(cgroup_ + "/cgroup.freeze", "1")) return false;
  // Freezing is asynchronous too: a thread inside a system call is frozen when it leaves it.
  return wait_for([&] { return reports_frozen(cgroup_); });
}

void HoldStill::release() {
  if (!held_) return;
  held_ = false;
  if (!cgroup_.empty()) write_file(cgroup_ + "/cgroup.freeze", "0");
  kill(-group_, SIGCONT);
}

}  // namespace pmpp_grader
