// attack: a solved exercise that aborts at exit, after every call has returned: its answers were
//         right, so it keeps its points; its exit status is nobody's verdict.
// exercise: max_reduction
// base: solution
// earns: as the solution
namespace {
struct AbortAtExit {
  AbortAtExit() { std::atexit([] { std::abort(); }); }
} abort_at_exit;
}  // namespace
