// How the grader times a call (see timing.hpp).
#include "timing.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "pmpp/cuda_check.hpp"
#include "pmpp/l2_flush.hpp"
#include "remote_call.hpp"

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

double TimedRuns::fixed_ms() const { return empty_ms.empty() ? 0 : *std::min_element(empty_ms.begin(), empty_ms.end()); }

double TimedRuns::net_ms() const { return std::max(0.0, median_ms() - fixed_ms()); }

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
  // One timed call: L2 evicted before it, the worker held still after it until the next.
  const auto timed = [&](const std::function<void()>& call_it) {
    l2.evict();
    reset_call_seconds();
    call_it();
    const double ms = call_seconds() * 1e3;
    if (!hold_still_until_next_call()) ++times.not_held;
    return ms;
  };
  const auto empty_call = [] { call(kEmptyCall); };
  for (int i = 0; i < warmup; ++i) {
    prepare();
    run();
    empty_call();
  }
  if (!hold_still_until_next_call()) ++times.not_held;
  for (int i = 0; i < repetitions; ++i) {
    prepare();  // the input is not left warm in L2 by this step (or by the previous run's reads)
    times.ms.push_back(timed(run));
    if (!check()) ++times.wrong;
    times.empty_ms.push_back(timed(empty_call));
  }
  let_go_of_worker();
  return times;
}

}  // namespace pmpp_grader
