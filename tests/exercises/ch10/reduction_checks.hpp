/// @file reduction_checks.hpp
/// @brief Running a chapter-10 exercise the way every reduction test does.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "exercise_test.hpp"

namespace ex_test {

/// A reduction exercise: `reduce(in, n, result)` with device pointers.
using Reduce = std::function<void(const float* in, std::size_t n, float* result)>;

/// Run @p reduce on a framed device copy of @p x whose guard bands hold @p input_guard: choose a value
/// that spoils the result when read (NaN for a sum; +infinity for a max, which ignores NaN). The result
/// is one float poisoned with NaN between NaN guards. CHECKs that the input came back unchanged and
/// that nothing was written next to the result.
inline float run_reduction(const Reduce& reduce, const std::vector<float>& x, float input_guard = kNaN) {
  Framed d_in(x, input_guard), d_result(1);
  reduce(d_in.data(), x.size(), d_result.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(d_result.guards_intact());
  CHECK(d_in.guards_intact());
  CHECK(same_bits(d_in.to_host(), x));
  return d_result.to_host()[0];
}

/// @p n zeros with a single 1 at @p position: a correct sum is exactly 1.
inline std::vector<float> one_hot(std::size_t n, std::size_t position) {
  std::vector<float> x(n, 0.0f);
  x[position] = 1.0f;
  return x;
}

}  // namespace ex_test
