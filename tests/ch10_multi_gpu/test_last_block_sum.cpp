// The sum across GPUs ended in each rank's last block: every rank ends with the exact sum of every
// rank's shard, for 1 rank up to one rank per GPU, call after call with other shards each time (a
// word left over from the call before would give a wrong total), the calls enqueued back to back.
#include <cuda_runtime_api.h>

#include <catch2/catch_test_macros.hpp>
#include <vector>

#include "ch10_reduction/multi_gpu/last_block_sum.hpp"
#include "gpu_test.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

using namespace pmpp::ch10::multi_gpu;
using pmpp::DeviceBuffer;

namespace {
// One call's shards: rank r's has counts[r] floats of small integers, so every order of additions
// gives the same float, and the total is known exactly.
struct Call {
  std::vector<DeviceBuffer<float>> inputs, totals;
  std::vector<std::size_t> counts;
  double want = 0;
};

Call make_call(const std::vector<int>& devices, std::size_t base_count, std::uint64_t seed) {
  Call c;
  for (std::size_t r = 0; r < devices.size(); ++r) {
    CUDA_CHECK(cudaSetDevice(devices[r]));
    const std::size_t n = base_count + 65 * r;  // not a multiple of 4: the tail is read too
    c.counts.push_back(n);
    c.inputs.emplace_back(n);
    fill_inputs(c.inputs.back().data(), n, seed, static_cast<int>(r), true);
    c.totals.emplace_back(1);
    c.totals.back().poison();  // NaN until the sum writes it
    for (std::size_t i = 0; i < n; ++i) c.want += all_reduce_input(seed, static_cast<int>(r), i, true);
  }
  for (int d : devices) {
    CUDA_CHECK(cudaSetDevice(d));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  return c;
}

void enqueue(LastBlockSum& sum, Call& c) {
  std::vector<const float*> inputs;
  std::vector<float*> totals;
  for (std::size_t r = 0; r < c.inputs.size(); ++r) {
    inputs.push_back(c.inputs[r].data());
    totals.push_back(c.totals[r].data());
  }
  sum.sum(inputs, c.counts, totals);
}

// Ranks 0..p-1 on devices[r]: three calls back to back (the third reuses the first's words), with
// shards of a million floats, of a few floats (a one-block grid), and of a million again.
void check_calls(const std::vector<int>& devices) {
  const int p = static_cast<int>(devices.size());
  std::vector<int> ranks(devices.size());
  for (int r = 0; r < p; ++r) ranks[static_cast<std::size_t>(r)] = r;
  LastBlockSum sum(ranks, devices, p, {});
  std::vector<Call> calls;
  calls.push_back(make_call(devices, 1000003, 11));
  calls.push_back(make_call(devices, 5, 12));
  calls.push_back(make_call(devices, 1000003, 13));
  for (Call& c : calls) enqueue(sum, c);
  for (std::size_t k = 0; k < calls.size(); ++k)
    for (std::size_t r = 0; r < devices.size(); ++r) {
      CUDA_CHECK(cudaSetDevice(devices[r]));
      float got = 0;
      CUDA_CHECK(cudaMemcpy(&got, calls[k].totals[r].data(), sizeof got, cudaMemcpyDeviceToHost));
      INFO("p = " << p << ", call " << k + 1 << ", rank " << r);
      CHECK(static_cast<double>(got) == calls[k].want);
    }
}

int gpu_count() {
  int gpus = 0;
  CUDA_CHECK(cudaGetDeviceCount(&gpus));
  return gpus;
}
}  // namespace

TEST_CASE("the last-block sum of one rank on one GPU is exact, call after call", "[gpu][last_block_sum]") {
  PMPP_REQUIRE_GPU();
  check_calls({0});
}

TEST_CASE("the last-block sum is exact on every rank, 2 ranks up to one per GPU, call after call",
          "[gpu][last_block_sum]") {
  PMPP_REQUIRE_GPU();
  const int gpus = gpu_count();
  if (gpus < 2) SKIP("this machine has " << gpus << " GPU; the sum across GPUs needs 2 or more");
  for (int p = 2; p <= gpus; ++p) {
    std::vector<int> devices;
    for (int d = 0; d < p; ++d) devices.push_back(d);
    check_calls(devices);
  }
}
