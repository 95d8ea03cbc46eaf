// Speed points (see speed_trial.hpp).
#include "speed_trial.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdio>
#include <iostream>
#include <string>

#include "pmpp/device_info.hpp"
#include "timing.hpp"
#include "workers.hpp"

namespace pmpp_grader {

void check_speed(const SpeedTrial& trial) {
  if (!reference_available())
    SKIP("speed is compared with the solution's worker, and none was given (--reference-worker)");
  L2Evictor l2;
  const TimedRuns yours = time_runs(Side::code_under_test, trial.prepare, trial.run, trial.check, trial.warmup,
                                    trial.repetitions, l2);
  retire_code_under_test();  // nothing of it may run while the solution is timed
  const TimedRuns solution = time_runs(Side::reference, trial.prepare, trial.run, trial.check, trial.warmup,
                                       trial.repetitions, l2);
  REQUIRE(solution.wrong == 0);  // else the trial itself is wrong, and no speed can be graded

  // Throughput is the work's own: each side's median call less its own fixed cost (an empty call).
  const double your_ms = yours.net_ms(), solution_ms = solution.net_ms();
  const double share = your_ms > 0 ? solution_ms / your_ms : 0;
  char line[640];
  std::snprintf(line, sizeof line,
                "speed (%s): yours %.4f ms, the solution's %.4f ms (medians of %d runs each, same GPU, L2 evicted "
                "before each run, timed around the whole call, less the call's fixed cost: %.4f and %.4f ms, the "
                "least of as many empty calls); yours reaches %.0f%% of the solution's throughput, %.0f%% earns "
                "the points",
                trial.what.c_str(), your_ms, solution_ms, trial.repetitions, yours.fixed_ms(), solution.fixed_ms(),
                100 * share, 100 * trial.fraction);
  std::cout << line << std::endl;
  INFO(line);
  const pmpp::DeviceInfo device = pmpp::query_device();
  const Floor floor = floor_of(trial.work, device.peak_dram_gbps, device.peak_fp32_gflops,
                               static_cast<double>(device.l2_bytes));
  const Physics physics = check_physics(your_ms, floor);
  std::cout << "physics: " << physics.line << std::endl;
  INFO("physics: " << physics.line);
  const std::string held = "the code under test could not be made sure to be held still between runs " +
                           std::to_string(yours.not_held) + " times";
  if (yours.not_held > 0) std::cout << held << std::endl;
  INFO((yours.not_held > 0 ? held : std::string("held still between runs")));
  INFO(yours.wrong << " of the " << trial.repetitions << " timed runs of the code under test gave a wrong result");
  CHECK(yours.wrong == 0);
  CHECK_FALSE(physics.flagged);
  CHECK(share >= trial.fraction);
}

}  // namespace pmpp_grader
