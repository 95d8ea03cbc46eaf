// The all-reduce's checker: every rank's result, element by element, against the sum of the inputs
// recomputed on the CPU in double.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "pmpp/check.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/parallel.hpp"

namespace pmpp::ch10::multi_gpu {

std::string VectorCheck::summary() const {
  char line[200];
  if (checked == 0) return "FAIL: nothing was checked";
  if (ok()) {
    std::snprintf(line, sizeof line, "PASS: %zu values, worst |error| %.3g", checked, worst_error);
    return line;
  }
  std::snprintf(line, sizeof line, "FAIL: %zu of %zu values differ; first: ", mismatches, checked);
  return line + first_mismatch;
}

VectorCheck check_all_reduced(const float* device_data, std::size_t n, std::uint64_t seed, int ranks, bool exact) {
  VectorCheck result;
  constexpr std::size_t kBlock = std::size_t{1} << 24;  // 64 MiB of results on the host at a time
  std::vector<float> got(std::min(n, kBlock));
  std::mutex lock;
  std::size_t first_bad = n;
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t count = std::min(kBlock, n - begin);
    CUDA_CHECK(cudaMemcpy(got.data(), device_data + begin, count * sizeof(float), cudaMemcpyDeviceToHost));
    parallel_for(static_cast<std::int64_t>(count), [&](std::int64_t lo, std::int64_t hi) {
      std::size_t bad = 0, first = n;
      std::uint64_t bits = 0;
      double worst = 0;
      char text[160] = "";
      for (std::int64_t k = lo; k < hi; ++k) {
        const std::size_t i = begin + static_cast<std::size_t>(k);
        double want = 0, magnitude = 0;
        for (int r = 0; r < ranks; ++r) {
          const double x = all_reduce_input(seed, r, i, exact);
          want += x;
          magnitude += std::fabs(x);
        }
        // Exact inputs: every partial sum is a small integer, so any order must give the same bits.
        // Otherwise each element went through at most p-1 roundings (a chain of adds around the ring).
        const Tolerance tolerance = exact ? Tolerance::exact() : Tolerance{sum_error_bound(ranks - 1, magnitude), 0};
        const float value = got[static_cast<std::size_t>(k)];
        std::uint32_t raw = 0;
        std::memcpy(&raw, &value, sizeof raw);
        bits += mix64(mix64(i) ^ raw);  // a sum of per-element hashes: the same in any order
        const double g = value;
        const double error = std::isnan(g) ? NAN : std::fabs(g - want);
        if (std::isnan(error) || error > worst) worst = error;
        if (!within(g, want, tolerance)) {
          if (bad++ == 0) {
            first = i;
            std::snprintf(text, sizeof text, "[%zu] got %.9g want %.9g", i, g, want);
          }
        }
      }
      const std::lock_guard<std::mutex> guard(lock);
      result.mismatches += bad;
      result.bits += bits;
      if (std::isnan(worst) || worst > result.worst_error) result.worst_error = worst;
      if (bad > 0 && first < first_bad) {
        first_bad = first;
        result.first_mismatch = text;
      }
    });
    result.checked += count;
  }
  return result;
}

}  // namespace pmpp::ch10::multi_gpu
