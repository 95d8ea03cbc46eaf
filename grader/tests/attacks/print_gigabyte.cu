// attack: print a gigabyte before main(). The report keeps a few kilobytes of it; the solved exercise
//         keeps its points.
// exercise: max_reduction
// base: solution
// earns: as the solution
namespace {
struct PrintGigabyte {
  PrintGigabyte() {
    const std::string block(1 << 20, 'A');
    for (int i = 0; i < 1024; ++i)
      if (write(1, block.data(), block.size()) < 0) break;
  }
} print_gigabyte;
}  // namespace
