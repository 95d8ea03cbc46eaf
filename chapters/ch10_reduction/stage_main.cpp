// main() of one chapter-10 stage program (built once per stage with PMPP_STAGE_ID, e.g. "01_simple").
#include <string>

#include "ch10_reduction/runner.hpp"

using namespace pmpp::ch10;

int main(int argc, char** argv) {
  const Stage& stage = *find_stage(PMPP_STAGE_ID);
  const std::string program = std::string("ch10_") + stage.id;
  return run_program(program,
                     std::string("Chapter 10 stage ") + stage.id + ": " + stage.title + " (PMPP " + stage.figure +
                         "). Prints the text's analysis, checks the GPU result against the CPU reference, times "
                         "it next to cub::DeviceReduce, and measures the text's counts with the counting build.",
                     {&stage}, argc, argv);
}
