// How the grader times a call (see timing.hpp).
#include "timing.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "pmpp/cuda_check.hpp"
#include "pmpp/l2_flush.hpp"

namespace pmpp_grader {
namespace {

std::size_t twice_l2() {
  int device = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return 2 * static_cast<std::size_t>(l2);  // twice L2 evicts it all
}

}  // namespace

double TimedRuns::median_ms() const {
  if (ms.empty()) return 0;
  std::vector<double> v = ms;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

L2Evictor::L2Evictor() : scratch_(twice_l2()), sink_(1) {
  CUDA_CHECK(cudaMemset(scratch_.data(), 0x5A, scratch_.bytes()));
}

void L2Evictor::evict() {
  pmpp::flush_l2_by_reading(scratch_.data(), scratch_.bytes(), sink_.data());
  CUDA_CHECK(cudaDeviceSynchronize());
}

TimedRuns time_runs(Side side, const std::function<void()>& prepare, const std::function<void()>& run,
                    const std::function<bool()>& check, int warmup, int repetitions, L2Evictor& l2) {
  UseSide use(side);
  TimedRuns times;
  for (int i = 0; i < warmup; ++i) {
    prepare();
    run();
  }
  for (int i = 0; i < repetitions; ++i) {
    prepare();
    // The input is not left warm in L2 by the prepare step (or by the previous run's reads).
    l2.evict();
    reset_call_seconds();
    run();
    times.ms.push_back(call_seconds() * 1e3);
    if (!check()) ++times.wrong;
  }
  return times;
}

}  // namespace pmpp_grader
