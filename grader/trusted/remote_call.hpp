/// @file remote_call.hpp
/// @brief The trusted side of a remote function: encode the arguments, have the worker run the call,
/// and end the way the code under test ended: return, or throw an exception of the same standard type
/// (so a test's `CHECK_THROWS_AS(..., std::invalid_argument)` keeps its meaning).
///
/// Device pointers travel as the number of their allocation plus the offset into it, the allocation
/// itself as a file descriptor (shareable_memory.hpp): the worker reads and writes the very buffers
/// the test made, NaN poison and guard bands included. Host arrays travel by value (read-only),
/// numbers as exactly their type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "wire.hpp"

namespace pmpp_grader {

struct DeviceArgument {
  const void* pointer;
};
struct HostArgument {
  const void* pointer;
  std::size_t bytes;
};

/// What a remote function's argument list is written with (see grader/calls/).
namespace arguments {

/// A pointer the function uses on the device, to read or to write.
inline DeviceArgument device(const void* pointer) { return {pointer}; }

/// A host array of @p count elements that the function reads.
template <class T>
HostArgument host(const T* pointer, std::size_t count) {
  return {pointer, count * sizeof(T)};
}

/// The taps of a filter of @p radius in @p dims dimensions, `(2r+1)^dims`; 0 for a radius outside
/// [0, @p max_radius], which the function must refuse before reading any.
std::size_t filter_taps(int radius, int dims, int max_radius);

}  // namespace arguments

/// One call, encoded: its frame (without the released allocations, which depend on the worker), and
/// the test's allocations it uses, which the worker must have been sent.
struct Request {
  FrameWriter frame;
  std::vector<std::uint64_t> allocations;
};

void encode(Request& out, DeviceArgument argument);
void encode(Request& out, HostArgument argument);
template <class T>
void encode(Request& out, T value) {
  static_assert(std::is_arithmetic_v<T>, "a remote function's arguments are device(), host() or numbers");
  out.frame.put(static_cast<std::uint8_t>(Tag::scalar));
  out.frame.put(static_cast<std::uint8_t>(scalar_kind<T>()));
  out.frame.put_bytes(&value, sizeof value);
}

/// Have the current worker (see workers.hpp) run the encoded call to @p function. Returns when it
/// returned; throws what it threw. A worker that crashed, hung or broke the protocol fails the test
/// case (a failed CHECK, whatever the test does with the exception that follows).
void perform(const char* function, const Request& request);

template <class... A>
Request request_for(const char* function, const A&... args) {
  Request out;
  out.frame.put_string(function);
  out.frame.put<std::uint32_t>(sizeof...(A));
  (encode(out, args), ...);
  return out;
}

template <class... A>
void call(const char* function, const A&... args) {
  perform(function, request_for(function, args...));
}

}  // namespace pmpp_grader
