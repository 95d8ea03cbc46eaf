// pmpp_next_steps <program>...: what to do next without a GPU, for the programs `make tour` ran. The
// tour (cmake/RunTour.cmake) calls it once at its end, rather than each program printing the block.
#include <cstdio>
#include <string>
#include <vector>

#include "pmpp/gpu_diagnosis.hpp"
#include "pmpp/next_steps.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> programs(argv + 1, argv + argc);
  const pmpp::NextSteps steps = pmpp::find_next_steps(pmpp::this_build().source_dir, programs);
  std::fputs(pmpp::describe_next_steps(steps).c_str(), stdout);
  return 0;
}
