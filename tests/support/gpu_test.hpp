/// @file gpu_test.hpp
/// @brief GPU test cases call PMPP_REQUIRE_GPU() first: without a GPU they are reported as skipped,
/// never as passed; on a GPU this build cannot use (an old driver, no code for its architecture) they
/// fail with the one line that names the fix.
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "pmpp/device_info.hpp"
#include "pmpp/gpu_diagnosis.hpp"

namespace pmpp_test {
/// The diagnosis of this process's GPU, made once: each test case runs in its own process anyway.
inline const pmpp::GpuDiagnosis& gpu_diagnosis() {
  static const pmpp::GpuDiagnosis diagnosis = pmpp::diagnose_gpu(pmpp::probe_gpu(), pmpp::this_build());
  return diagnosis;
}
}  // namespace pmpp_test

/// Skip the current test case (Catch2 SKIP, CTest "skipped") on a machine without a GPU; fail it when
/// there is a GPU this build cannot use.
#define PMPP_REQUIRE_GPU()                                                                  \
  do {                                                                                      \
    const ::pmpp::GpuDiagnosis& pmpp_gpu_ = ::pmpp_test::gpu_diagnosis();                   \
    if (pmpp_gpu_.verdict == ::pmpp::GpuVerdict::no_gpu)                                    \
      SKIP("no CUDA-capable GPU on this machine: " << pmpp_gpu_.message);                   \
    if (pmpp_gpu_.verdict != ::pmpp::GpuVerdict::ready) FAIL(pmpp_gpu_.message);            \
  } while (0)
