// pmpp_sandbox: how the grader runs code it does not trust (a student's worker, and the compiler on a
// student's source, which reads whatever files the source names): as an unprivileged user, in its
// own cgroups, isolated from the rest of the machine (isolation.cpp), with resource limits and a
// clean environment. Or, with --clean-up, it ends every process of that user (clean_up.cpp).
//
//   pmpp_sandbox [options] -- PROGRAM [ARGS...]
//   pmpp_sandbox --user UID:GID --clean-up
//
// PROGRAM may lie under a hidden path; a script (say a wrapper that execs the real nvcc) may not.
//
//   --user UID:GID     run as this user and group, with no supplementary groups (needs root)
//   --isolate          (with --user) private mount, IPC and network namespaces (no network), and a
//                      read-only file system but for fresh, size-limited /tmp, /var/tmp and /dev/shm;
//                      a /dev without GPUs (but --gpu's)
//   --hide PATH        (with --isolate) PATH (a folder) shows up empty and unreadable, or (a file) empty
//   --loopback         (with --isolate) the network namespace's own loopback is up: a profiler talks to
//                      the process it profiles over it; it reaches nothing outside the namespace
//   --reach-by-fd PATH the file PATH is opened before anything is hidden, and every argument of the
//                      program equal to PATH becomes /proc/self/fd/N, that descriptor: so a program
//                      started by the program (a profiled worker) runs although its folder is hidden
//   --gpu BUS_ID       (with --isolate) the GPU at this PCI address (as nvidia-smi's pci.bus_id) is the
//                      only one it can open; without --gpu it can open none
//   --workdir DIR      run in DIR (with --isolate it shows up as /tmp/work); without it the
//                      working directory is /tmp/work, new and empty (with --isolate), else /
//   --cgroup DIR       join this cgroup (its cgroup.procs) first; repeatable (cgroup v1 hierarchies)
//   --cpu SECONDS      CPU time (RLIMIT_CPU); then SIGXCPU, and SIGKILL 5 s later
//   --memory BYTES     private writable memory (RLIMIT_DATA: heap and anonymous mappings). Not address
//                      space (RLIMIT_AS): CUDA reserves virtual ranges as large as the GPU's memory.
//   --processes N      processes and threads of the user (RLIMIT_NPROC; counted per user)
//   --file-size BYTES  the largest file it may write (RLIMIT_FSIZE)
//   --open-files N     open descriptors (RLIMIT_NOFILE)
//   --env NAME=VALUE   set a variable; the environment otherwise holds only PATH, HOME, TMPDIR, LC_ALL
//                      and CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER when they are set here
//   --keep-fd N        keep descriptor N open; every descriptor above 2 but these is closed
//
// Exit status: the program's; 2 for bad options; 125 when the sandbox could not be set up (a line on
// stderr says why). With --clean-up: 0 when no process of the user is left, nor anything of it in
// /dev/shm, /dev/mqueue and System V IPC.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "sandbox.hpp"

using namespace pmpp_sandbox;

namespace {

struct Options {
  std::optional<std::pair<uid_t, gid_t>> user;
  bool isolate = false;
  bool loopback = false;
  bool clean_up = false;
  std::vector<std::string> hide;
  std::string gpu;
  std::vector<std::string> cgroups;
  std::string workdir;
  std::vector<std::pair<int, rlim_t>> limits;
  std::vector<std::string> env;
  std::vector<int> keep_fds;
  std::vector<std::string> reach_by_fd;
  std::vector<std::string> command;
};

[[noreturn]] void usage(const std::string& what) {
  std::fprintf(stderr, "pmpp_sandbox: %s (usage: pmpp_sandbox [options] -- PROGRAM [ARGS...])\n", what.c_str());
  std::exit(2);
}

unsigned long long number(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-') usage(option + " needs a number, got '" + text + "'");
  return value;
}

Options parse(int argc, char* argv[]) {
  Options o;
  int i = 1;
  const auto value = [&](const std::string& option) -> std::string {
    if (i + 1 >= argc) usage(option + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      o.command.assign(argv + i + 1, argv + argc);
      break;
    }
    if (a == "--user") {
      const std::string ids = value(a);
      const auto colon = ids.find(':');
      if (colon == std::string::npos) usage("--user needs UID:GID");
      o.user = {static_cast<uid_t>(number(a, ids.substr(0, colon))), static_cast<gid_t>(number(a, ids.substr(colon + 1)))};
    } else if (a == "--isolate") {
      o.isolate = true;
    } else if (a == "--loopback") {
      o.loopback = true;
    } else if (a == "--reach-by-fd") {
      o.reach_by_fd.push_back(value(a));
    } else if (a == "--gpu") {
      o.gpu = value(a);
    } else if (a == "--cgroup") {
      o.cgroups.push_back(value(a));
    } else if (a == "--clean-up") {
      o.clean_up = true;
    } else if (a == "--hide") {
      o.hide.push_back(value(a));
    } else if (a == "--workdir") {
      o.workdir = value(a);
    } else if (a == "--cpu") {
      o.limits.push_back({RLIMIT_CPU, number(a, value(a))});
    } else if (a == "--memory") {
      o.limits.push_back({RLIMIT_DATA, number(a, value(a))});
    } else if (a == "--processes") {
      o.limits.push_back({RLIMIT_NPROC, number(a, value(a))});
    } else if (a == "--file-size") {
      o.limits.push_back({RLIMIT_FSIZE, number(a, value(a))});
    } else if (a == "--open-files") {
      o.limits.push_back({RLIMIT_NOFILE, number(a, value(a))});
    } else if (a == "--env") {
      const std::string setting = value(a);
      if (setting.find('=') == std::string::npos || setting[0] == '=') usage("--env needs NAME=VALUE");
      o.env.push_back(setting);
    } else if (a == "--keep-fd") {
      o.keep_fds.push_back(static_cast<int>(number(a, value(a))));
    } else {
      usage("unknown option " + a);
    }
  }
  if (o.clean_up) {
    if (!o.user || !o.command.empty()) usage("--clean-up needs --user and no program");
    return o;
  }
  if (o.command.empty()) usage("no program given");
  if (o.command.front().find('/') == std::string::npos) usage("give the program's path, not just its name");
  if ((o.isolate || !o.hide.empty()) && !o.user) usage("--isolate and --hide need --user");
  if ((!o.hide.empty() || !o.gpu.empty() || o.loopback) && !o.isolate)
    usage("--hide, --gpu and --loopback need --isolate");
  for (const std::string& path : o.hide)
    if (path.empty() || path[0] != '/' || path == "/") usage("--hide needs an absolute path other than /");
  return o;
}

// ---- Running a program ----------------------------------------------------------------------------

void close_other_descriptors(std::vector<int> keep) {
  keep.push_back(2);
  std::sort(keep.begin(), keep.end());
  int next = 3;
  for (int fd : keep) {
    if (fd >= next) {
      if (fd > next) close_range(static_cast<unsigned>(next), static_cast<unsigned>(fd - 1), 0);
      next = fd + 1;
    }
  }
  close_range(static_cast<unsigned>(next), ~0U, 0);
}

std::vector<std::string> environment(const Options& o) {
  std::vector<std::string> env{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                               std::string("HOME=") + (o.isolate ? "/tmp/work" : "/"),
                               std::string("TMPDIR=/tmp"), "LC_ALL=C"};
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"})
    if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
  for (const std::string& setting : o.env) {
    const std::string name = setting.substr(0, setting.find('=') + 1);
    env.erase(std::remove_if(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(name, 0) == 0; }),
              env.end());
    env.push_back(setting);
  }
  return env;
}

/// True when @p path starts with "#!": a script, which the kernel runs through its interpreter.
bool is_script(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char start[2] = {};
  const bool script = read(fd, start, 2) == 2 && start[0] == '#' && start[1] == '!';
  close(fd);
  return script;
}

/// Move this process into each of @p cgroups (by their folders), before it starts anything: what it
/// starts stays there, under the cgroup's limits, and is killed with it.
void join_cgroups(const std::vector<std::string>& cgroups) {
  for (const std::string& dir : cgroups) write_text(dir + "/cgroup.procs", std::to_string(getpid()));
}

int run(const Options& o) {
  if (o.user && geteuid() != 0) fail("--user needs root");
  if (o.user && o.user->first == 0) fail("will not run code under test as root");
  join_cgroups(o.cgroups);
  // A program (a worker) is opened now, before anything is hidden: it may lie under a hidden path.
  // A script (a compiler's wrapper, such as an nvcc that only execs the real one) cannot run from a
  // close-on-exec descriptor: its interpreter would be handed /dev/fd/N, closed by then. It runs by
  // its path, which must stay visible.
  const std::string& path = o.command.front();
  const bool script = is_script(path);
  const int program = open(path.c_str(), O_PATH | O_CLOEXEC);
  check(program >= 0, "cannot open " + path);
  std::vector<int> keep = o.keep_fds;
  std::vector<std::string> command = o.command;
  for (const std::string& file : o.reach_by_fd) {  // inherited, unlike the program's own descriptor
    const int fd = open(file.c_str(), O_PATH);
    check(fd >= 0, "cannot open " + file);
    keep.push_back(fd);
    std::replace(command.begin() + 1, command.end(), file, "/proc/self/fd/" + std::to_string(fd));
  }
  if (o.isolate)
    isolate({o.user->first, o.user->second, o.workdir, o.hide, o.gpu, o.loopback});
  else
    check(chdir(o.workdir.empty() ? "/" : o.workdir.c_str()) == 0, "cannot enter the working folder " + o.workdir);

  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  for (const auto& [resource, value] : o.limits) {
    // CPU time: SIGXCPU at the limit, SIGKILL a little later if that is ignored.
    const rlimit limit{value, resource == RLIMIT_CPU ? value + 5 : value};
    check(setrlimit(resource, &limit) == 0, "cannot set a resource limit");
  }
  if (o.user) {
    const auto [uid, gid] = *o.user;
    check(setgroups(0, nullptr) == 0, "cannot drop the supplementary groups");
    check(setresgid(gid, gid, gid) == 0, "cannot change group");
    check(setresuid(uid, uid, uid) == 0, "cannot change user");
    if (getuid() != uid || geteuid() != uid || setuid(0) == 0) fail("the change of user did not hold");
  }
  check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "cannot forbid new privileges");
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the change of user, which clears it: die with the parent

  keep.push_back(program);  // close-on-exec: gone once the program runs
  close_other_descriptors(keep);
  const std::vector<std::string> env = environment(o);
  std::vector<char*> argv, envp;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  if (script)
    execve(path.c_str(), argv.data(), envp.data());
  else
    syscall(SYS_execveat, program, "", argv.data(), envp.data(), AT_EMPTY_PATH);
  fail("cannot run " + path + (script ? " (a script, run by its path)" : "") + ": " + std::strerror(errno));
}

}  // namespace

namespace pmpp_sandbox {

void fail(const std::string& what) {
  std::fprintf(stderr, "pmpp_sandbox: %s\n", what.c_str());
  std::exit(kSetupFailed);
}

void check(bool ok, const std::string& what) {
  if (!ok) fail(what + ": " + std::strerror(errno));
}

void write_text(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  check(fd >= 0, "cannot open " + path);
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  close(fd);
  errno = error;
  check(written, "cannot write " + path);
}

}  // namespace pmpp_sandbox

int main(int argc, char* argv[]) {
  const Options options = parse(argc, argv);
  if (options.clean_up) {
    if (geteuid() != 0) fail("--clean-up needs root");
    return clean_up(options.user->first, options.user->second);
  }
  return run(options);
}
