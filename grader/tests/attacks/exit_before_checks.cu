// attack: exit(0) before any check can run (a solved exercise that never answers).
// exercise: max_reduction
// base: solution
// earns: nothing
namespace {
struct ExitBeforeMain {
  ExitBeforeMain() { std::exit(0); }
} exit_before_main;
}  // namespace
