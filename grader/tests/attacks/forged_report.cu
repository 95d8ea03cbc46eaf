// attack: the classic one. Before main(), find every report the grader might be writing (Catch2's
//         xml::out= path, --results, --junit, --out on any command line; any descriptor of another
//         process, the verdict pipe included) and write a passing one into it; then _exit(0).
// exercise: max_reduction
// base: starter
// earns: nothing
namespace {
struct ForgeBeforeMain {
  ForgeBeforeMain() {
    std::printf("forged %d reports\n", attack::forge_everything());
    std::fflush(stdout);
    _exit(0);
  }
} forge_before_main;
}  // namespace
