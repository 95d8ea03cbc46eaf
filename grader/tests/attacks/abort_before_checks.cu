// attack: abort() before any check can run.
// exercise: two_pass_sum
// base: solution
// earns: nothing
namespace {
struct AbortBeforeMain {
  AbortBeforeMain() { std::abort(); }
} abort_before_main;
}  // namespace
