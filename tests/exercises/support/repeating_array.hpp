/// @file repeating_array.hpp
/// @brief Device arrays larger than the GPU's memory, for the tests of 64-bit indices.
///
/// A kernel that indexes in 32 bits fails only past 2^31 (or 2^32) elements: 8 or 16 GiB of floats,
/// an input and an output more than a 16 GB T4 holds. Such a test needs real memory only where it
/// puts values and reads results: a few windows (near the ends, near 2^31). So a RepeatingArray maps
/// its windows to memory of their own and every other block of its addresses to one and the same
/// block of memory: an input that is zero there, or an output that a correct kernel fills with zeros
/// there, for about 100 MiB where a plain array would take 8 GiB. A kernel still touches every
/// address, at full speed; one that strays before or past the array leaves its addresses and faults,
/// or meets the guard bands (as in Framed).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exercise_test.hpp"
#include "shareable_memory.hpp"

namespace ex_test {

class RepeatingArray {
 public:
  /// Elements [first, first + count) that need memory of their own.
  using Window = std::pair<std::size_t, std::size_t>;
  /// The size of the repeated block: each window takes whole blocks of memory.
  static constexpr std::size_t kBlockBytes = std::size_t{16} << 20;

  /// @p n floats, every byte 0xFF (a NaN) but for guard bands of value @p guard before and after; the
  /// elements of @p own have memory of their own. Skips the case when the GPU cannot give the memory.
  RepeatingArray(std::size_t n, const std::vector<Window>& own, float guard = kNaN) : n_(n), guard_(guard) {
    std::vector<std::pair<std::size_t, std::size_t>> windows{{0, kGuard * sizeof(float)},
                                                             {(kGuard + n) * sizeof(float), kGuard * sizeof(float)}};
    for (auto [first, count] : own) {
      if (first >= n || count > n - first) throw std::invalid_argument("RepeatingArray: a window past the end");
      windows.push_back({(kGuard + first) * sizeof(float), count * sizeof(float)});
    }
    // At most two blocks per window (one that straddles a boundary), and the repeated block.
    require_device_memory((2 * windows.size() + 1) * kBlockBytes);
    CUDA_CHECK(pmpp_grader::allocate_mostly_repeated(&made_, (n + 2 * kGuard) * sizeof(float), kBlockBytes, windows));
    base_ = static_cast<float*>(made_.base);
    fill(0xFF);
  }
  ~RepeatingArray() { cudaFree(base_); }
  RepeatingArray(const RepeatingArray&) = delete;
  RepeatingArray& operator=(const RepeatingArray&) = delete;

  float* data() { return base_ + kGuard; }
  std::size_t size() const { return n_; }
  /// The device memory it holds: what the test needs, where a plain array would need size() floats.
  std::size_t device_bytes() const { return made_.physical; }

  /// Every element 0.0f, guards kept.
  void zero() { fill(0); }
  /// Set element @p index, which must lie in a window of its own memory (elsewhere it would be set in
  /// every repeated block).
  void set(std::size_t index, float value) {
    require_own(index, 1);
    CUDA_CHECK(cudaMemcpy(data() + index, &value, sizeof value, cudaMemcpyHostToDevice));
  }
  /// Elements [offset, offset + count), which must lie in windows of their own memory, to the host.
  std::vector<float> range(std::size_t offset, std::size_t count) const {
    require_own(offset, count);
    std::vector<float> host(count);
    if (count > 0)
      CUDA_CHECK(cudaMemcpy(host.data(), base_ + kGuard + offset, count * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }
  /// The repeated block, to the host: what every element outside the windows reads (none when the
  /// windows cover the array).
  std::vector<float> repeated_block() const {
    if (made_.repeated_at == 0) return {};
    std::vector<float> host(made_.block / sizeof(float));
    CUDA_CHECK(cudaMemcpy(host.data(), reinterpret_cast<const char*>(base_) + made_.repeated_at, made_.block,
                          cudaMemcpyDeviceToHost));
    return host;
  }
  /// True when both guard bands still hold their value, bit for bit.
  bool guards_intact() const { return guards_hold(base_ + kGuard, n_, guard_); }

 private:
  /// Every byte of every element @p byte (the windows and the repeated block, so everywhere), then
  /// the guard bands.
  void fill(int byte) {
    for (const auto& [begin, end] : made_.own)
      CUDA_CHECK(cudaMemset(reinterpret_cast<char*>(base_) + begin, byte, end - begin));
    if (made_.repeated_at != 0)
      CUDA_CHECK(cudaMemset(reinterpret_cast<char*>(base_) + made_.repeated_at, byte, made_.block));
    write_guards(data(), n_, guard_);
  }
  void require_own(std::size_t first, std::size_t count) const {
    const std::size_t begin = (kGuard + first) * sizeof(float), end = begin + count * sizeof(float);
    for (const auto& [own_begin, own_end] : made_.own)
      if (own_begin <= begin && end <= own_end) return;
    throw std::invalid_argument("RepeatingArray: elements " + std::to_string(first) + " to " +
                                std::to_string(first + count) + " are not in one window of their own memory");
  }

  std::size_t n_;
  float guard_;
  pmpp_grader::MostlyRepeated made_;
  float* base_ = nullptr;
};

}  // namespace ex_test
