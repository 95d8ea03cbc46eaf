/// @file wire.hpp
/// @brief What crosses the pipes between the grader's test process (trusted, it decides the verdict)
/// and a worker (the process that runs the code under test): length-prefixed frames, the arguments of
/// one call, and its reply.
///
/// Both sides are built from this header, so they agree on the layout; neither trusts the other's
/// bytes: every read is bounds-checked, and a frame longer than kMaxFrame is refused. Both processes
/// run on the same machine, so numbers travel in native byte order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace pmpp_grader {

/// The worker's first frame: proof that it reached main() and speaks this protocol.
inline constexpr char kHandshake[] = "pmpp-worker/1";
/// The worker reads requests from this descriptor and writes replies to the next; the trusted side
/// sets both up before it starts the worker. (The code under test can write to them too: that only
/// garbles its own replies, which fails its own calls.)
inline constexpr int kRequestFd = 3;
inline constexpr int kReplyFd = 4;
/// The worker receives the test's device memory on this Unix socket: one message per allocation, its
/// HandleMessage and, attached (SCM_RIGHTS), a file descriptor for the memory, sent before the first
/// request that uses it. A descriptor cannot be forged or guessed, unlike a CUDA IPC handle (which
/// another process can build from the exporter's pid), so a worker reaches the memory of its own test
/// and of no one else's. The trusted side never reads from it.
inline constexpr int kMemoryFd = 5;
/// The call every worker answers by launching a kernel that does nothing (then synchronizing and
/// replying, as after every call): what a call costs around the work, timed beside a speed trial's
/// calls (timing.hpp).
inline constexpr char kEmptyCall[] = "pmpp_grader::empty_call";
/// The largest frame either side accepts: far above any request the tests send (host arrays are
/// filters of at most a few thousand floats), far below what could exhaust memory.
inline constexpr std::uint32_t kMaxFrame = 16u << 20;
/// Exception messages and type names longer than this are cut.
inline constexpr std::size_t kMaxText = 4096;

/// How one argument travels.
enum class Tag : std::uint8_t {
  null_pointer = 'N',  ///< nullptr
  device = 'D',        ///< device memory: the allocation's number, its device, the offset into it
  host = 'H',          ///< host memory, read-only: the bytes themselves
  address = 'A',       ///< a pointer that is neither (or no GPU to ask): its value, meaningless over there
  scalar = 'S',        ///< a number: its kind, its size, its bytes
};

/// What kind of number a scalar is; with its size, it must match the parameter exactly.
enum class ScalarKind : std::uint8_t { signed_integer = 'i', unsigned_integer = 'u', floating = 'f', boolean = 'b' };

template <class T>
constexpr ScalarKind scalar_kind() {
  static_assert(std::is_arithmetic_v<T>, "only numbers and pointers can cross to the worker");
  if constexpr (std::is_same_v<T, bool>) return ScalarKind::boolean;
  else if constexpr (std::is_floating_point_v<T>) return ScalarKind::floating;
  else if constexpr (std::is_signed_v<T>) return ScalarKind::signed_integer;
  else return ScalarKind::unsigned_integer;
}

/// How a call ended, as the worker reports it.
enum class Status : std::uint8_t {
  returned = 'R',     ///< the function returned and the device synchronized without error
  threw = 'T',        ///< the function threw: type name and message follow (and a CUDA code, or 0)
  cuda_error = 'C',   ///< it returned, but synchronizing the device failed: code and message follow
  bad_request = 'B',  ///< the worker could not make sense of the request (a grader bug): message follows
};

/// What comes with the descriptor of one piece of memory of an allocation of the test's (see kMemoryFd).
/// Allocations are numbered in the order the test made them, and a number is never used again. Most
/// allocations are one piece, mapped over all their addresses. An allocation larger than the GPU's
/// memory, for a test of 64-bit indices, is several: pieces mapped once each, at their offsets, and at
/// most one *repeated* piece, mapped at every multiple of its size that the others leave free (see
/// allocate_mostly_repeated in shareable_memory.hpp).
struct HandleMessage {
  std::uint64_t allocation;
  std::uint64_t bytes;         ///< the allocation's addresses in all, a multiple of the granularity
  std::uint64_t offset;        ///< where this piece is mapped (ignored for the repeated piece)
  std::uint64_t piece_bytes;   ///< the size of this piece, a multiple of the granularity
  std::uint32_t pieces;        ///< how many pieces the allocation has, this one included
  std::uint32_t repeated;      ///< 1 for the repeated piece, else 0
};

/// A request is: the numbers of the allocations the worker was sent and that the test has freed since
/// (the worker unmaps them first: the test may never use them again), then the call: the function's
/// name, its number of arguments, each argument (Tag, then its payload).
inline constexpr std::uint32_t kMaxReleased = 1u << 16;

/// A frame malformed by the sender.
class Malformed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Builds one frame's payload.
class FrameWriter {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put_bytes(const void* data, std::size_t count) {
    put<std::uint64_t>(count);
    if (count > 0) bytes_.append(static_cast<const char*>(data), count);
  }
  void put_string(const std::string& text) { put_bytes(text.data(), text.size()); }
  /// @p bytes as they are, without a length: another writer's payload, appended.
  void put_raw(const std::string& bytes) { bytes_ += bytes; }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

/// Reads one frame's payload; every read past the end throws Malformed.
class FrameReader {
 public:
  explicit FrameReader(const std::string& frame) : next_(frame.data()), end_(frame.data() + frame.size()) {}

  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  /// A length-prefixed byte string of at most @p limit bytes: where it starts, and its length.
  const char* get_bytes(std::size_t limit, std::size_t* count) {
    const auto n = get<std::uint64_t>();
    if (n > limit) throw Malformed("a field of " + std::to_string(n) + " bytes, more than " + std::to_string(limit));
    *count = static_cast<std::size_t>(n);
    return take(*count);
  }
  std::string get_string(std::size_t limit = kMaxText) {
    std::size_t n = 0;
    const char* data = get_bytes(limit, &n);
    return std::string(data, n);
  }
  bool at_end() const { return next_ == end_; }

 private:
  const char* take(std::size_t count) {
    if (count > static_cast<std::size_t>(end_ - next_)) throw Malformed("the frame ends early");
    const char* at = next_;
    next_ += count;
    return at;
  }
  const char* next_;
  const char* end_;
};

/// @p text with every byte that is not printable ASCII (or a newline or tab) replaced by '?', cut to
/// @p limit bytes: the worker's words reach reports and terminals only in this form.
inline std::string printable(const std::string& text, std::size_t limit = kMaxText) {
  std::string out = text.substr(0, limit);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (!(u == '\n' || u == '\t' || (u >= 0x20 && u < 0x7f))) c = '?';
  }
  if (text.size() > limit) out += " [cut]";
  return out;
}

}  // namespace pmpp_grader
