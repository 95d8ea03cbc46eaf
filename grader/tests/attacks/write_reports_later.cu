// attack: leave a daemon (forked twice, in its own session) that keeps writing forged reports for a
//         minute, to overwrite the real ones once grading has written them.
// exercise: max_reduction
// base: starter
// earns: nothing
namespace {
struct LeaveDaemon {
  LeaveDaemon() {
    if (fork() != 0) return;
    setsid();
    if (fork() != 0) _exit(0);
    for (int i = 0; i < 300; ++i) {
      attack::forge_everything();
      usleep(200000);
    }
    _exit(0);
  }
} leave_daemon;
}  // namespace
