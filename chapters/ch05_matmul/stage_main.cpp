// main() of one chapter-5 stage program (built once per stage with PMPP_STAGE_ID, e.g. "02_tiled").
#include <string>

#include "ch05_matmul/runner.hpp"

using namespace pmpp::ch05;

int main(int argc, char** argv) {
  const Stage& stage = *find_stage(PMPP_STAGE_ID);
  const std::string program = std::string("ch05_") + stage.id;
  return run_program(program,
                     std::string("Chapter 5 stage ") + stage.id + ": " + stage.title + " (" + stage.figure +
                         "). Prints the text's analysis, checks the GPU result against the CPU reference, and times "
                         "it next to cuBLAS SGEMM on the same problem.",
                     {&stage}, argc, argv);
}
