// attack: write garbage on the worker's reply pipe before main(): a forged answer, then nonsense.
// exercise: max_reduction
// base: starter
// earns: nothing
namespace {
struct Garbage {
  Garbage() {
    const char reply[] = "\x0d\x00\x00\x00pmpp-worker/1\x40\x00\x00\x00R nonsense that claims success";
    for (int fd : {1, 2, 4}) (void)!write(fd, reply, sizeof reply);
  }
} garbage;
}  // namespace
