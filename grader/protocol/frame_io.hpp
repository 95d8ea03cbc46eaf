/// @file frame_io.hpp
/// @brief Frames on a pipe: a 32-bit length, then that many bytes. Reads can wait until a deadline,
/// so that the trusted side never waits forever on a worker.
#pragma once

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "wire.hpp"

namespace pmpp_grader {

using Clock = std::chrono::steady_clock;

/// Why a frame could not be read.
enum class ReadFailure { closed, timed_out, too_large, io_error };

/// Write all @p count bytes of @p data to @p fd; false when the other end is gone.
inline bool write_all(int fd, const void* data, std::size_t count) {
  const char* next = static_cast<const char*>(data);
  while (count > 0) {
    const ssize_t n = ::write(fd, next, count);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    next += n;
    count -= static_cast<std::size_t>(n);
  }
  return true;
}

inline bool write_frame(int fd, const std::string& payload) {
  const auto length = static_cast<std::uint32_t>(payload.size());
  return payload.size() <= kMaxFrame && write_all(fd, &length, sizeof length) &&
         write_all(fd, payload.data(), payload.size());
}

/// Read exactly @p count bytes, waiting at most until @p deadline (if given).
inline std::optional<ReadFailure> read_exact(int fd, void* data, std::size_t count,
                                             std::optional<Clock::time_point> deadline) {
  char* next = static_cast<char*>(data);
  while (count > 0) {
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return ReadFailure::timed_out;
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (ready < 0 && errno != EINTR) return ReadFailure::io_error;
      if (ready <= 0) continue;
    }
    const ssize_t n = ::read(fd, next, count);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ReadFailure::io_error;
    if (n == 0) return ReadFailure::closed;
    next += n;
    count -= static_cast<std::size_t>(n);
  }
  return std::nullopt;
}

/// Read one frame into @p payload; a length above kMaxFrame is refused before anything is allocated.
inline std::optional<ReadFailure> read_frame(int fd, std::string& payload,
                                             std::optional<Clock::time_point> deadline = std::nullopt) {
  std::uint32_t length = 0;
  if (auto failure = read_exact(fd, &length, sizeof length, deadline)) return failure;
  if (length > kMaxFrame) return ReadFailure::too_large;
  payload.assign(length, '\0');
  return read_exact(fd, payload.data(), length, deadline);
}

}  // namespace pmpp_grader
