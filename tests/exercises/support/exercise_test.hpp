/// @file exercise_test.hpp
/// @brief Everything an exercise test includes: Catch2, the GPU skip, framed device arrays, the CPU
/// references and the device-memory skip. Instructors' hidden tests can include it too.
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "framed.hpp"
#include "gpu_test.hpp"
#include "references.hpp"
#include "workers.hpp"
#include "pmpp/check.hpp"
#include "pmpp/random.hpp"

namespace ex_test {

/// Skip the current test case (reported as not gradable, never as passed) when the GPU has less than
/// @p bytes of free memory, plus a sixteenth for the runtime's own needs. Fail it instead when the
/// code under test is what holds that memory (it could otherwise dodge the case), or when the run is
/// meant to show that the tests fit a smaller GPU (PMPP_GPU_MEMORY_GIB, see workers.hpp).
inline void require_device_memory(std::size_t bytes) {
  const std::size_t needed = bytes + bytes / 16;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes >= needed) return;
  if (pmpp_grader::code_under_test_holds_gpu_memory(needed))
    FAIL("the code under test holds the GPU memory this test needs (" << needed / (1u << 20) << " MiB)");
  if (pmpp_grader::settings().gpu_memory_gib > 0)
    FAIL("this test needs " << needed / (1u << 20) << " MiB of free GPU memory, more than PMPP_GPU_MEMORY_GIB="
                            << pmpp_grader::settings().gpu_memory_gib << " leaves");
  SKIP("this test needs " << needed / (1u << 20) << " MiB of free GPU memory; this GPU has "
                          << free_bytes / (1u << 20) << " MiB free");
}

}  // namespace ex_test
