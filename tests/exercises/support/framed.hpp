/// @file framed.hpp
/// @brief Device arrays framed by guard bands, for the exercise tests (and instructors' hidden tests).
///
/// An output is filled with NaN before the kernel runs, so an element the kernel forgets can never
/// pass; an input is framed by guard values, so a kernel that reads past either end (a ghost cell it
/// did not skip) picks up a value that spoils its result. Afterwards the guards must be unchanged:
/// a kernel that writes past either end fails even when the write did not crash.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

namespace ex_test {

/// Floats of guard band on each side of an array.
inline constexpr std::size_t kGuard = 64;
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

/// Fill the guard bands around the @p n floats at @p data (kGuard floats before and after) with @p guard.
inline void write_guards(float* data, std::size_t n, float guard) {
  const std::vector<float> band(kGuard, guard);
  CUDA_CHECK(cudaMemcpy(data - kGuard, band.data(), kGuard * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(data + n, band.data(), kGuard * sizeof(float), cudaMemcpyHostToDevice));
}

/// True when both guard bands around the @p n floats at @p data still hold @p guard, bit for bit.
inline bool guards_hold(const float* data, std::size_t n, float guard) {
  std::vector<float> before(kGuard), after(kGuard);
  CUDA_CHECK(cudaMemcpy(before.data(), data - kGuard, kGuard * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(after.data(), data + n, kGuard * sizeof(float), cudaMemcpyDeviceToHost));
  const std::vector<float> band(kGuard, guard);
  return std::memcmp(before.data(), band.data(), kGuard * sizeof(float)) == 0 &&
         std::memcmp(after.data(), band.data(), kGuard * sizeof(float)) == 0;
}

/// n floats of device memory between two guard bands of kGuard floats each.
class Framed {
 public:
  /// An output of @p n floats: every byte 0xFF (a NaN), guards filled with @p guard.
  explicit Framed(std::size_t n, float guard = kNaN) : n_(n), guard_(guard), buffer_(n + 2 * kGuard) {
    buffer_.poison();
    write_guards(data(), n_, guard_);
  }
  /// An input holding @p host, framed by guards of value @p guard.
  Framed(const std::vector<float>& host, float guard) : Framed(host.size(), guard) { write(kGuard, host); }

  float* data() { return buffer_.data() + kGuard; }
  std::size_t size() const { return n_; }

  /// Elements [offset, offset + count) of the array, copied to the host.
  std::vector<float> range(std::size_t offset, std::size_t count) const {
    std::vector<float> host(count);
    if (count > 0)
      CUDA_CHECK(cudaMemcpy(host.data(), buffer_.data() + kGuard + offset, count * sizeof(float),
                            cudaMemcpyDeviceToHost));
    return host;
  }
  /// The whole array, copied to the host.
  std::vector<float> to_host() const { return range(0, n_); }

  /// Every element from @p host (of size() elements), guards untouched: an input made ready for another run.
  void assign(const std::vector<float>& host) {
    if (host.size() != n_) throw std::invalid_argument("Framed::assign: the host array has another size");
    write(kGuard, host);
  }
  /// Set element @p index (for sparse inputs too large to build on the host).
  void set(std::size_t index, float value) {
    CUDA_CHECK(cudaMemcpy(buffer_.data() + kGuard + index, &value, sizeof value, cudaMemcpyHostToDevice));
  }
  /// Every element NaN again (all bytes 0xFF), guards untouched: an output made ready for another run.
  void poison() { CUDA_CHECK(cudaMemset(buffer_.data() + kGuard, 0xFF, n_ * sizeof(float))); }
  /// Every element 0.0f (all zero bits), guards untouched.
  void zero() { CUDA_CHECK(cudaMemset(buffer_.data() + kGuard, 0, n_ * sizeof(float))); }

  /// True when both guard bands still hold their value, bit for bit.
  bool guards_intact() const { return guards_hold(buffer_.data() + kGuard, n_, guard_); }

 private:
  void write(std::size_t offset, const std::vector<float>& host) {
    if (!host.empty())
      CUDA_CHECK(cudaMemcpy(buffer_.data() + offset, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }

  std::size_t n_;
  float guard_;
  pmpp::DeviceBuffer<float> buffer_;
};

/// True when @p a and @p b hold the same bits (so NaN == NaN and -0 != +0).
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}
inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace ex_test
