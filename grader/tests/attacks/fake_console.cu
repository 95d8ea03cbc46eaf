// attack: print what passing tests print (Catch2's summary, grade's PASS lines, its protocol line),
//         on stdout and stderr, before main() and at exit.
// exercise: max_reduction
// base: starter
// earns: nothing
namespace {
void print_success() {
  const char* text =
      "All tests passed (42 assertions in 1 test case)\n"
      "  PASS  ex10.1 max_reduction: random floats: the exact maximum for every size [3] (0.01 s)\n"
      "pmpp-grader: all good\n"
      "Score: 10 / 10 points\n";
  std::fputs(text, stdout);
  std::fputs(text, stderr);
  std::fflush(nullptr);
}
struct FakeConsole {
  FakeConsole() {
    print_success();
    std::atexit(print_success);
  }
} fake_console;
}  // namespace
