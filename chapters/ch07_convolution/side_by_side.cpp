// ch07_convolution: every chapter-7 stage and the libraries (cuDNN, NPP) on the same problem, side by
// side, after the text's analysis; or, with --sweep, the stages beyond the text at every radius.
#include <vector>

#include "ch07_convolution/runner.hpp"

using namespace pmpp::ch07;

int main(int argc, char** argv) {
  std::vector<const Stage*> all;
  for (const Stage& s : stages()) all.push_back(&s);
  return run_program("ch07_convolution",
                     "Chapter 7, convolution: the text's analysis (Fig 7.14), then every stage, cuDNN and NPP on "
                     "one problem, checked against the CPU reference and timed side by side.",
                     all, argc, argv);
}
