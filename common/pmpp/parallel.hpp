/// @file parallel.hpp
/// @brief parallel_for over the CPU's cores, so CPU references keep up with large GPU inputs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace pmpp {

/// Call body(begin, end) on disjoint chunks of [0, n), one chunk per hardware thread.
template <class Body>
void parallel_for(std::int64_t n, Body&& body) {
  const std::int64_t workers = std::max<std::int64_t>(1, std::min<std::int64_t>(std::thread::hardware_concurrency(), n / 4096 + 1));
  if (workers == 1) {
    body(std::int64_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::int64_t chunk = (n + workers - 1) / workers;
  for (std::int64_t w = 0; w < workers; ++w) {
    const std::int64_t begin = w * chunk, end = std::min(n, begin + chunk);
    if (begin < end) pool.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (auto& t : pool) t.join();
}

}  // namespace pmpp
