// attack: sleep past every time limit before main() (a solved exercise that never answers).
// exercise: max_reduction
// base: solution
// earns: nothing
namespace {
struct SleepBeforeMain {
  SleepBeforeMain() { sleep(100000); }
} sleep_before_main;
}  // namespace
