/// @file program.hpp
/// @brief Exit statuses and the main() wrapper every program shares.
#pragma once

#include <cstdio>
#include <exception>
#include <string>

#include "pmpp/cli.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/next_steps.hpp"
#include "pmpp/words.hpp"

namespace pmpp {

/// Exit statuses of every program in this repository (documented in README.md).
enum ExitStatus : int {
  kExitPass = 0,          ///< ran, checked against the CPU reference, passed
  kExitCheckFailed = 1,   ///< the GPU result differs from the CPU reference
  kExitUsage = 2,         ///< bad option or bad input file (one line on stderr)
  kExitRuntimeError = 3,  ///< a CUDA call failed, or another unexpected error
  kExitNoGpu = 77,        ///< no usable GPU: printed only what needs none (CTest reports "skipped")
};

/// Run @p body and turn exceptions into a message on stderr and the matching exit status. A usage error
/// is one line (tests hold programs to it); other errors, which can name a fix as long as a rebuild
/// command, wrap at kTerminalWidth with a hanging indent.
template <class Body>
int guarded_main(const char* program, Body&& body) {
  auto report = [program](const char* kind, const char* what) {
    std::fputs(wrap_text(std::string(program) + ": " + kind + ": " + what, "", "  ").c_str(), stderr);
  };
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s (try --help)\n", program, e.what());
    return kExitUsage;
  } catch (const CudaError& e) {
    report("CUDA error", e.what());
    return kExitRuntimeError;
  } catch (const std::exception& e) {
    report("error", e.what());
    return kExitRuntimeError;
  }
}

/// True if this build can run on the GPU. False on a machine without a GPU, after printing the
/// one-line explanation programs share and what to do next without a GPU (next_steps.hpp); the caller
/// exits with kExitNoGpu. A GPU this build cannot use throws the one line that names the fix, which
/// guarded_main prints to stderr with exit status kExitRuntimeError: a failure, never a skip (see
/// gpu_diagnosis.hpp).
inline bool gpu_or_explain(const char* program) {
  std::string why;
  if (gpu_available(&why)) return true;
  explain_no_gpu(program, why);
  return false;
}

}  // namespace pmpp
