// main() of one chapter-7 stage program (built once per stage with PMPP_STAGE_ID, e.g. "03_tiled_halo").
#include <string>

#include "ch07_convolution/runner.hpp"

using namespace pmpp::ch07;

int main(int argc, char** argv) {
  const Stage& stage = *find_stage(PMPP_STAGE_ID);
  const Stage& first = stages().front();
  return run_program(std::string("ch07_") + stage.id,
                     std::string("Chapter 7 stage ") + stage.id + ": " + stage.title + " (" + stage.figure +
                         "). Prints the text's analysis, checks the GPU result against the CPU reference, and times it" +
                         (&stage == &first ? "" : std::string(" next to stage ") + first.id + " on the same problem") +
                         (stage.round_trip ? "; also checks its hand-written host round trip." : "."),
                     {&stage}, argc, argv);
}
