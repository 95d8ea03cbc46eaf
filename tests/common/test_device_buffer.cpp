#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <vector>

#include "gpu_test.hpp"
#include "pmpp/device_buffer.hpp"

TEST_CASE("DeviceBuffer round-trips data, poisons with NaN and moves", "[gpu][device_buffer]") {
  PMPP_REQUIRE_GPU();
  const std::vector<float> host{1.5f, -2.0f, 3.25f};
  pmpp::DeviceBuffer<float> a(host);
  CHECK(a.to_host() == host);
  a.poison();
  for (float x : a.to_host()) CHECK(std::isnan(x));
  pmpp::DeviceBuffer<float> b(std::move(a));
  CHECK(a.data() == nullptr);
  CHECK(b.size() == 3);
}

TEST_CASE("CUDA_CHECK turns an error into an exception naming the call", "[gpu][cuda_check]") {
  PMPP_REQUIRE_GPU();
  void* p = nullptr;
  try {
    CUDA_CHECK(cudaMalloc(&p, ~std::size_t{0}));  // no device has 2^64 bytes
    FAIL("no exception");
  } catch (const pmpp::CudaError& e) {
    CHECK(e.code() == cudaErrorMemoryAllocation);
    CHECK(std::string(e.what()).find("cudaMalloc") != std::string::npos);
  }
}
