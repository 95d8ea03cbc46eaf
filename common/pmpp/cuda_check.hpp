/// @file cuda_check.hpp
/// @brief Turn every failing CUDA runtime call into an exception that names the call.
///
/// Programs catch it in main() (see program.hpp) and exit with status 3; Catch2 tests report it as a
/// failed test case. Checks are never compiled out: a kernel that silently fails to launch is the
/// most expensive bug a student can have.
#pragma once

#include <cuda_runtime_api.h>

#include <sstream>
#include <stdexcept>
#include <string>

namespace pmpp {

/// A CUDA runtime error with the failing call's text and location.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* expression, const char* file, int line)
      : std::runtime_error(describe(code, expression, file, line)), code_(code) {}

  /// The runtime's error code (e.g. cudaErrorInvalidConfiguration).
  cudaError_t code() const noexcept { return code_; }

 private:
  static std::string describe(cudaError_t code, const char* expression, const char* file, int line) {
    std::ostringstream out;
    out << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") from " << expression
        << " at " << file << ':' << line;
    return out.str();
  }
  cudaError_t code_;
};

}  // namespace pmpp

/// Evaluate a CUDA runtime call once; throw pmpp::CudaError if it did not return cudaSuccess.
#define CUDA_CHECK(expression)                                                        \
  do {                                                                                \
    const cudaError_t pmpp_status_ = (expression);                                    \
    if (pmpp_status_ != cudaSuccess)                                                  \
      throw ::pmpp::CudaError(pmpp_status_, #expression, __FILE__, __LINE__);         \
  } while (0)

/// Check a kernel launch. A launch returns nothing: a bad configuration (too many threads, too much
/// shared memory) only shows up in cudaGetLastError. Errors inside the kernel appear at the next
/// synchronizing call, which tests make right after the launch.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
