// ch10_reduction: every chapter-10 stage and cub::DeviceReduce on the same input, side by side, after
// the text's analysis.
#include <vector>

#include "ch10_reduction/runner.hpp"

using namespace pmpp::ch10;

int main(int argc, char** argv) {
  std::vector<const Stage*> all;
  for (const Stage& s : stages()) all.push_back(&s);
  return run_program("ch10_reduction",
                     "Chapter 10, reduction: the text's analysis, then every stage and cub::DeviceReduce on one "
                     "input, each checked against the CPU reference, timed, and counted by its counting build. "
                     "Stages 01-03 reduce in one block (n <= 2048) and sit out larger inputs.",
                     all, argc, argv);
}
