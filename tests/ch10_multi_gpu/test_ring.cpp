// The hand-written ring on the GPU. Several ranks may share one GPU (each with its own vector, staging
// and streams), so p = 2, 3, 4, 5 rings are checked on any machine with a GPU; on a machine with
// several GPUs the same ring runs with one rank per GPU. Every element of every rank is checked.
#include <cuda_runtime_api.h>

#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "gpu_test.hpp"
#include "pmpp/cuda_check.hpp"
#include "ring_checks.hpp"

using namespace pmpp::ch10::multi_gpu;
using namespace pmpp::ch10::multi_gpu::testing;

TEST_CASE("the ring all-reduces with 2 to 5 ranks on one GPU, for awkward lengths", "[gpu][ring]") {
  PMPP_REQUIRE_GPU();
  for (int p : {2, 3, 4, 5}) {
    // Messages of 64 floats and 2 staging slots: many messages per step, every slot reused many times.
    Ring ring(std::vector<int>(static_cast<std::size_t>(p), 0), kLengths.back(), {64, 2});
    for (std::size_t n : kLengths) {
      INFO("p = " << p << ", n = " << n << ", " << ring.plan(n).messages() << " messages per rank");
      fill(ring, n, n + static_cast<std::size_t>(p), true);
      ring.all_reduce(n);  // no synchronization: the checker's copies wait on the default stream
      check_every_rank(ring, n, n + static_cast<std::size_t>(p), true);
    }
  }
}

TEST_CASE("the ring with the default messages, and random floats within p-1 roundings", "[gpu][ring]") {
  PMPP_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 22) + 5;
  for (int p : {2, 3}) {
    Ring ring(std::vector<int>(static_cast<std::size_t>(p), 0), n);
    INFO("p = " << p << ": " << ring.plan(n).chunks << " messages per step");
    fill(ring, n, 11, false);
    ring.all_reduce(n);
    check_every_rank(ring, n, 11, false);
  }
}

TEST_CASE("all-reduce twice in place: the second sums the first's results", "[gpu][ring]") {
  PMPP_REQUIRE_GPU();
  // Back to back, without the host waiting: the second all-reduce must not overwrite a staging slot
  // the first is still adding from, nor send a piece the first has not finished.
  for (int p : {2, 3, 5}) {
    Ring ring(std::vector<int>(static_cast<std::size_t>(p), 0), 100003, {64, 1});
    fill(ring, 100003, 5, true);
    ring.all_reduce(100003);
    ring.all_reduce(100003);
    check_every_rank(ring, 100003, 5, true, static_cast<float>(p));
    // A shorter one after a longer one on the same ring (fewer messages, other events).
    fill(ring, 1000, 6, true);
    ring.all_reduce(1000);
    check_every_rank(ring, 1000, 6, true);
  }
}

TEST_CASE("the ring leaves everything past n alone, and one rank changes nothing", "[gpu][ring]") {
  PMPP_REQUIRE_GPU();
  Ring ring(std::vector<int>(3, 0), 4096, {64, 2});
  for (int r : ring.local_ranks()) {
    CUDA_CHECK(cudaSetDevice(ring.device(r)));
    CUDA_CHECK(cudaMemset(ring.vector(r), 0xFF, 4096 * sizeof(float)));  // NaN past n
  }
  fill(ring, 1000, 2, true);
  ring.all_reduce(1000);
  check_every_rank(ring, 1000, 2, true);
  for (int r : ring.local_ranks()) {
    std::vector<float> tail(4096 - 1000);
    CUDA_CHECK(cudaMemcpy(tail.data(), ring.vector(r) + 1000, tail.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::size_t touched = 0;
    for (float x : tail) touched += !std::isnan(x);
    CHECK(touched == 0);
  }

  Ring alone(std::vector<int>{0}, 1000);
  fill(alone, 1000, 3, true);
  alone.all_reduce(1000);
  check_every_rank(alone, 1000, 3, true);
}

TEST_CASE("the ring across every GPU of this machine, one rank per GPU and two per GPU", "[gpu][ring]") {
  PMPP_REQUIRE_GPU();
  const int gpus = gpu_count();
  if (gpus < 2) SKIP("this machine has " << gpus << " GPU; the ring across GPUs needs 2 or more");
  for (int per_gpu : {1, 2}) {
    std::vector<int> devices;
    for (int r = 0; r < gpus * per_gpu; ++r) devices.push_back(r % gpus);
    Ring ring(devices, kLengths.back(), {1024, 2});
    for (std::size_t n : kLengths) {
      INFO(gpus << " GPUs, " << per_gpu << " rank(s) each, n = " << n);
      fill(ring, n, n, true);
      ring.all_reduce(n);
      check_every_rank(ring, n, n, true);
    }
  }
}

TEST_CASE("link measurement: every rank's copy reaches its right neighbour", "[gpu][links]") {
  PMPP_REQUIRE_GPU();
  Ring ring(std::vector<int>(3, 0), std::size_t{1} << 20);
  fill(ring, std::size_t{1} << 20, 9, true);
  const LinkBandwidth links = measure_links(ring, std::size_t{4} << 20, 3, [] {});
  REQUIRE(links.alone.size() == 3);
  REQUIRE(links.loads.size() == 3);
  REQUIRE(links.stores.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(links.alone[k] > 0);
    CHECK(links.together[k] > 0);
    CHECK(links.loads[k] > 0);
    CHECK(links.stores[k] > 0);
  }
  // The copies moved whole vectors between neighbours: the warm-up goes once around the ring in rank
  // order (1 gets 0's, 2 gets 1's, 0 gets 2's), so every vector now holds rank 0's inputs, and the
  // timed copies (by copy engines, SM loads and SM stores) keep it so.
  for (int r = 0; r < 3; ++r) {
    std::vector<float> got(std::size_t{1} << 20);
    CUDA_CHECK(cudaMemcpy(got.data(), ring.vector(r), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != all_reduce_input(9, 0, i, true);
    CHECK(wrong == 0);
  }
}
