// Speed points (see speed_trial.hpp).
#include "speed_trial.hpp"

#include <catch2/catch_test_macros.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/l2_flush.hpp"
#include "workers.hpp"

namespace pmpp_grader {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

struct Times {
  std::vector<double> ms;
  int wrong = 0;
};

Times time_side(const SpeedTrial& trial, Side side, pmpp::DeviceBuffer<unsigned char>& scratch,
                pmpp::DeviceBuffer<unsigned int>& sink) {
  UseSide use(side);
  Times times;
  for (int i = 0; i < trial.warmup; ++i) {
    trial.prepare();
    trial.run();
  }
  for (int i = 0; i < trial.repetitions; ++i) {
    trial.prepare();
    // The input is not left warm in L2 by the prepare step (or by the previous run's reads).
    pmpp::flush_l2_by_reading(scratch.data(), scratch.bytes(), sink.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    reset_call_seconds();
    trial.run();
    times.ms.push_back(call_seconds() * 1e3);
    if (!trial.check()) ++times.wrong;
  }
  return times;
}

}  // namespace

void check_speed(const SpeedTrial& trial) {
  if (!reference_available())
    SKIP("speed is compared with the solution's worker, and none was given (--reference-worker)");
  int device = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  pmpp::DeviceBuffer<unsigned char> scratch(2 * static_cast<std::size_t>(l2));  // twice L2 evicts it all
  pmpp::DeviceBuffer<unsigned int> sink(1);
  CUDA_CHECK(cudaMemset(scratch.data(), 0x5A, scratch.bytes()));

  const Times yours = time_side(trial, Side::code_under_test, scratch, sink);
  retire_code_under_test();  // nothing of it may run while the solution is timed
  const Times solution = time_side(trial, Side::reference, scratch, sink);
  REQUIRE(solution.wrong == 0);  // else the trial itself is wrong, and no speed can be graded

  const double your_ms = median(yours.ms), solution_ms = median(solution.ms);
  const double share = your_ms > 0 ? solution_ms / your_ms : 0;
  char line[512];
  std::snprintf(line, sizeof line,
                "speed (%s): yours %.4f ms, the solution's %.4f ms (medians of %d runs each, same GPU, L2 "
                "evicted before each run, timed around the whole call); yours reaches %.0f%% of the solution's "
                "throughput, %.0f%% earns the points",
                trial.what.c_str(), your_ms, solution_ms, trial.repetitions, 100 * share, 100 * trial.fraction);
  std::cout << line << std::endl;
  INFO(line);
  INFO(yours.wrong << " of the " << trial.repetitions << " timed runs of the code under test gave a wrong result");
  CHECK(yours.wrong == 0);
  CHECK(share >= trial.fraction);
}

}  // namespace pmpp_grader
