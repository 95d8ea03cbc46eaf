/// @file reduction_checks.hpp
/// @brief Running a chapter-10 exercise the way every reduction test does.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "exercise_test.hpp"
#include "floor.hpp"

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

/// The launch that speed and feedback cases time: 2^28 floats, 1 GiB, far beyond L2 and long enough to
/// time well. Its floor: read the gigabyte once, one operation per element, write one float.
inline constexpr std::size_t kTimedLength = std::size_t{1} << 28;
inline pmpp_grader::Work timed_reduction_work() {
  return {kTimedLength * 4.0, 4.0, static_cast<double>(kTimedLength)};
}

/// The timed sum: one small integer in every 64 elements, so every partial sum is an integer below
/// 2^24 and any order of additions gives the exact sum. Before every run one element changes, and so
/// does the sum: no earlier answer is right. Built in place (its steps refer to it).
class TimedSum {
 public:
  explicit TimedSum(Reduce reduce) : reduce_(std::move(reduce)), x_(kTimedLength, 0.0f), random_(11) {
    for (std::size_t i = 0; i < kTimedLength; i += 64)
      x_[i + random_() % 64] = static_cast<float>(static_cast<int>(random_() % 7) - 3);
    want_ = sum_reference(x_);
    d_in_ = std::make_unique<Framed>(x_, kNaN);
  }
  TimedSum(const TimedSum&) = delete;
  TimedSum& operator=(const TimedSum&) = delete;

  std::function<void()> prepare() {
    return [this] {
      const std::size_t at = random_() % kTimedLength;
      const float value = x_[at] == 1.0f ? -1.0f : 1.0f;
      want_ += value - x_[at];
      x_[at] = value;
      d_in_->set(at, value);
      d_result_.poison();
    };
  }
  std::function<void()> run() {
    return [this] { reduce_(d_in_->data(), kTimedLength, d_result_.data()); };
  }
  std::function<bool()> check() {
    return [this] { return d_result_.to_host()[0] == want_; };
  }

 private:
  Reduce reduce_;
  std::vector<float> x_;
  std::mt19937_64 random_;
  double want_ = 0;
  std::unique_ptr<Framed> d_in_;
  Framed d_result_{1};
};

/// The timed maximum: random floats in [-100, 100]; before every run a new, larger maximum somewhere
/// else, so no earlier answer is right. Past the input's end lies +infinity: a kernel that reads there
/// returns it.
class TimedMax {
 public:
  explicit TimedMax(Reduce reduce)
      : reduce_(std::move(reduce)), d_in_(pmpp::random_floats(kTimedLength, 2024, -100.0f, 100.0f), kInf),
        where_(7) {
    want_ = max_reference(d_in_.to_host());
  }
  TimedMax(const TimedMax&) = delete;
  TimedMax& operator=(const TimedMax&) = delete;

  std::function<void()> prepare() {
    return [this] {
      want_ += 1.0f;
      d_in_.set(where_() % kTimedLength, want_);
      d_result_.poison();
    };
  }
  std::function<void()> run() {
    return [this] { reduce_(d_in_.data(), kTimedLength, d_result_.data()); };
  }
  std::function<bool()> check() {
    return [this] { return same_bits(d_result_.to_host()[0], want_); };
  }

 private:
  Reduce reduce_;
  Framed d_in_;
  std::mt19937_64 where_;
  float want_ = 0;
  Framed d_result_{1};
};

}  // namespace ex_test
