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
#include "pmpp/check.hpp"
#include "pmpp/random.hpp"

namespace ex_test {

/// Skip the current test case (reported as not gradable, never as passed) when the GPU has less than
/// @p bytes of free memory, plus a sixteenth for the runtime's own needs.
inline void require_device_memory(std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < bytes + bytes / 16)
    SKIP("this test needs " << (bytes + bytes / 16) / (1u << 20) << " MiB of free GPU memory; this GPU has "
                            << free_bytes / (1u << 20) << " MiB free");
}

}  // namespace ex_test
