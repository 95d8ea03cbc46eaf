/// @file random.hpp
/// @brief Seeded, reproducible inputs. Never all ones or zeros: those hide wrong indexing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pmpp {

/// Uniform floats in [lo, hi), the same sequence for the same seed on every machine.
/// (std::uniform_real_distribution is implementation-defined, so the mapping is written out.)
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937_64 engine(seed);
  std::vector<float> v(n);
  const double scale = (static_cast<double>(hi) - lo) / 18446744073709551616.0;  // 2^64
  for (auto& x : v) x = static_cast<float>(lo + scale * static_cast<double>(engine()));
  return v;
}

/// Integers in [lo, hi] stored as floats. Sums and products of a few of them are exact in float, so
/// a kernel must reproduce the reference bit for bit whatever order it adds in.
inline std::vector<float> random_small_ints(std::size_t n, std::uint64_t seed, int lo = -4, int hi = 4) {
  std::mt19937_64 engine(seed);
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo + 1);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(lo + static_cast<int>(engine() % span));
  return v;
}

}  // namespace pmpp
