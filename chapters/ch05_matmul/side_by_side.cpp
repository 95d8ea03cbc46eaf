// ch05_matmul: every chapter-5 stage and cuBLAS on the same problem, side by side, after the text's analysis.
#include <vector>

#include "ch05_matmul/runner.hpp"

using namespace pmpp::ch05;

int main(int argc, char** argv) {
  std::vector<const Stage*> all;
  for (const Stage& s : stages()) all.push_back(&s);
  return run_program("ch05_matmul",
                     "Chapter 5, matrix multiplication: the text's intensity and coalescing analysis, then every "
                     "stage (both TILE_WIDTHs of the tiled one) and cuBLAS SGEMM on one problem, each checked "
                     "against the CPU reference and timed.",
                     all, argc, argv);
}
