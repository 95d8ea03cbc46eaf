// The sum across GPUs' last level by peer reads: every rank ends with the sum of every rank's partial
// sum, the same bits on every rank, call after call (the words alternate by the call's parity), with
// several ranks on one GPU and, where there are several GPUs, across them.
#include <cuda_runtime_api.h>

#include <catch2/catch_test_macros.hpp>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "gpu_test.hpp"
#include "pmpp/cuda_check.hpp"

using namespace pmpp::ch10::multi_gpu;

namespace {
void set_partial(PeerSum& sum, std::size_t i, int device, float value) {
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaMemcpy(sum.partial(i), &value, sizeof value, cudaMemcpyHostToDevice));
}

float total(const PeerSum& sum, std::size_t i, int device) {
  CUDA_CHECK(cudaSetDevice(device));
  float value = 0;
  CUDA_CHECK(cudaMemcpy(&value, sum.total(i), sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

// Ranks on `devices`, five calls each with other partial sums: rank r's partial in call k is
// (r + 1) * 2^k, so the total is 2^k * p(p+1)/2, exact in float.
void check_calls(const std::vector<int>& devices) {
  const int p = static_cast<int>(devices.size());
  std::vector<int> ranks(devices.size());
  for (int r = 0; r < p; ++r) ranks[static_cast<std::size_t>(r)] = r;
  PeerSum sum(ranks, devices, p, {});
  for (int k = 0; k < 5; ++k) {
    const float scale = static_cast<float>(1 << k);
    for (int r = 0; r < p; ++r) {
      const std::size_t i = static_cast<std::size_t>(r);
      set_partial(sum, i, devices[i], scale * static_cast<float>(r + 1));
    }
    sum.combine();
    for (int r = 0; r < p; ++r) {
      INFO("p = " << p << ", call " << k + 1 << ", rank " << r);
      CHECK(total(sum, static_cast<std::size_t>(r), devices[static_cast<std::size_t>(r)]) ==
            scale * static_cast<float>(p * (p + 1) / 2));
    }
  }
}
}  // namespace

TEST_CASE("peer reads sum the partial sums of 1 to 5 ranks on one GPU, call after call", "[gpu][peer_sum]") {
  PMPP_REQUIRE_GPU();
  for (int p = 1; p <= 5; ++p) check_calls(std::vector<int>(static_cast<std::size_t>(p), 0));
}

TEST_CASE("peer reads across every GPU of this machine", "[gpu][peer_sum]") {
  PMPP_REQUIRE_GPU();
  int gpus = 0;
  CUDA_CHECK(cudaGetDeviceCount(&gpus));
  if (gpus < 2) SKIP("this machine has " << gpus << " GPU; peer reads across GPUs need 2 or more");
  std::vector<int> one_each, two_each;
  for (int d = 0; d < gpus; ++d) one_each.push_back(d);
  for (int r = 0; r < 2 * gpus; ++r) two_each.push_back(r % gpus);
  check_calls(one_each);
  check_calls(two_each);
}
