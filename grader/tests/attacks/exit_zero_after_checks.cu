// attack: the starter code, and _exit(0) at exit, as if to hide the failed checks.
// exercise: max_reduction
// base: starter
// earns: nothing
namespace {
struct ExitZeroAtExit {
  ExitZeroAtExit() { std::atexit([] { _exit(0); }); }
} exit_zero_at_exit;
}  // namespace
