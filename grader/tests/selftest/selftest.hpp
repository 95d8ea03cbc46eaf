/// @file selftest.hpp
/// @brief A pretend exercise for testing the grader's machinery itself: functions that report what
/// reached them, and one that misbehaves on request (grader/tests/selftest/).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmpp_grader_selftest {

/// Throws std::runtime_error whose message is describe_arguments() of what arrived.
void echo(int i, std::int64_t j, std::size_t k, float x, double d, bool b, const float* values, std::size_t count,
          const float* device_pointer);

/// Misbehaviours, for misbehave().
enum Behaviour : int {
  kReturn,                ///< return normally
  kThrowInvalidArgument,  ///< std::invalid_argument("bad argument")
  kThrowOutOfRange,       ///< std::out_of_range("out of range")
  kThrowDerived,          ///< a class derived from std::invalid_argument, "derived"
  kThrowCustom,           ///< a class derived from std::exception only, "custom"
  kThrowInt,              ///< throw 42
  kCrash,                 ///< SIGSEGV
  kExitZero,              ///< exit(0) in the middle of the call
  kAbort,                 ///< abort()
  kHang,                  ///< never return
  kPrintMegabyte,         ///< print 1 MiB on stdout, then return
  kMalformedReply,        ///< write a well-framed but meaningless reply on the reply pipe
  kOversizedReply,        ///< write a frame header longer than any frame may be
  kListDescriptors,       ///< throw std::runtime_error("open descriptors above 5: <fd=target ..., or none>")
  kTickInBackground,      ///< return, leaving a thread that prints "tick" every millisecond
  kTickInChildAway,       ///< return, leaving a child in a session of its own that prints "tick" likewise
};
void misbehave(int how);

/// A cheat in miniature, for the physics check and for holding workers still: the first call leaves a
/// thread that watches the file at @p path (@p length bytes with its terminating zero) and, when the
/// file says "poison", works 50 ms and writes "answer" into it. Every call returns as soon as the file
/// says "answer", so work the thread did before the call costs the call nothing.
void answer_before_the_clock(const char* path, std::size_t length);

/// Write @p value into the @p n floats at @p device (with cudaMemcpy: no kernel needed).
void fill(float* device, std::size_t n, float value);

}  // namespace pmpp_grader_selftest
