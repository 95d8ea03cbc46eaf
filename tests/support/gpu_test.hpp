/// @file gpu_test.hpp
/// @brief GPU test cases call PMPP_REQUIRE_GPU() first: without a GPU they are reported as skipped,
/// never as passed.
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "pmpp/device_info.hpp"

/// Skip the current test case (Catch2 SKIP, CTest "skipped") when no GPU can be used.
#define PMPP_REQUIRE_GPU()                                       \
  do {                                                           \
    std::string pmpp_why_;                                       \
    if (!::pmpp::gpu_available(&pmpp_why_))                      \
      SKIP("no CUDA-capable GPU on this machine: " << pmpp_why_); \
  } while (0)
