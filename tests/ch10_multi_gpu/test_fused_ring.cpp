// The fused ring on the GPU. Several ranks may share one GPU (one kernel runs them all, a row of blocks
// each), so p = 2 to 5 rings are checked on any machine with a GPU; with several GPUs the same ring runs
// with one and two ranks per GPU, storing into its neighbours' memory over the links. Every element of
// every rank is checked, and every rank's vector against every other's, bit for bit.
#include <cuda_runtime_api.h>

#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "gpu_test.hpp"
#include "pmpp/cuda_check.hpp"
#include "ring_checks.hpp"

using namespace pmpp::ch10::multi_gpu;
using namespace pmpp::ch10::multi_gpu::testing;

namespace {
// Every rank's first n floats against the CPU's sums (times `factor`), and against rank 0's bit for bit:
// the fused ring's all-gather copies each finished piece, so every rank must hold the same bits.
void check_every_rank_same_bits(Ring& ring, std::size_t n, std::uint64_t seed, bool exact, float factor = 1) {
  check_every_rank(ring, n, seed, exact, factor);
  const std::vector<float> first = copy_back(ring, 0, n);
  for (int r : ring.local_ranks()) {
    const std::vector<float> got = copy_back(ring, r, n);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) differ += std::memcmp(&got[i], &first[i], sizeof(float)) != 0;
    INFO("rank " << r << " against rank 0, bit for bit");
    CHECK(differ == 0);
  }
}

}  // namespace

TEST_CASE("the fused ring all-reduces with 2 to 5 ranks on one GPU, for awkward lengths", "[gpu][fused_ring]") {
  PMPP_REQUIRE_GPU();
  for (int p : {2, 3, 4, 5}) {
    // The default two staging slots per piece (from p = 4 a push waits for a credit), or three.
    for (int slots : {0, 3}) {
      Ring ring(std::vector<int>(static_cast<std::size_t>(p), 0), kLengths.back());
      // Pieces of 64 floats and 7 blocks: many pieces per block and step, every flag reused many times.
      FusedRing fused(ring, {64, 7, slots});
      for (std::size_t n : kLengths) {
        INFO("p = " << p << ", n = " << n << ", " << fused.plan(n).chunks << " pieces per step, "
                    << fused.plan(n).slots << " slots");
        fill(ring, n, n + static_cast<std::size_t>(p), true);
        fused.all_reduce(n);  // no synchronization: the checker's copies wait on the default stream
        check_every_rank_same_bits(ring, n, n + static_cast<std::size_t>(p), true);
      }
    }
  }
}

TEST_CASE("the fused ring with its default pieces and blocks, and random floats within p-1 roundings",
          "[gpu][fused_ring]") {
  PMPP_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 22) + 5;
  for (int p : {2, 3}) {
    Ring ring(std::vector<int>(static_cast<std::size_t>(p), 0), n);
    FusedRing fused(ring);
    INFO("p = " << p << ": " << fused.blocks() << " blocks, " << fused.plan(n).chunks << " pieces per step");
    CHECK(fused.blocks() >= 1);
    fill(ring, n, 11, false);
    fused.all_reduce(n);
    check_every_rank_same_bits(ring, n, 11, false);
  }
}

TEST_CASE("fused all-reduce twice in place, then a shorter one, without the host waiting", "[gpu][fused_ring]") {
  PMPP_REQUIRE_GPU();
  // Back to back: the second's pushes must not land in staging or a vector still in use for the first.
  for (int p : {2, 3, 5}) {
    Ring ring(std::vector<int>(static_cast<std::size_t>(p), 0), 100003);
    FusedRing fused(ring, {64, 3});
    fill(ring, 100003, 5, true);
    fused.all_reduce(100003);
    fused.all_reduce(100003);
    check_every_rank_same_bits(ring, 100003, 5, true, static_cast<float>(p));
    fill(ring, 1000, 6, true);
    fused.all_reduce(1000);
    check_every_rank_same_bits(ring, 1000, 6, true);
  }
}

TEST_CASE("the fused and the copy-engine ring take turns on the same vectors", "[gpu][fused_ring]") {
  PMPP_REQUIRE_GPU();
  Ring ring(std::vector<int>(3, 0), 100003, {1024, 2});
  FusedRing fused(ring, {256, 5});
  for (std::size_t n : {std::size_t{100003}, std::size_t{4093}}) {
    fill(ring, n, 8, true);
    ring.all_reduce(n);
    fused.all_reduce(n);
    check_every_rank_same_bits(ring, n, 8, true, 3.0f);
  }
}

TEST_CASE("the fused ring leaves everything past n alone, and one rank changes nothing", "[gpu][fused_ring]") {
  PMPP_REQUIRE_GPU();
  Ring ring(std::vector<int>(3, 0), 4096);
  FusedRing fused(ring, {64, 2});
  for (int r : ring.local_ranks()) {
    CUDA_CHECK(cudaSetDevice(ring.device(r)));
    CUDA_CHECK(cudaMemset(ring.vector(r), 0xFF, 4096 * sizeof(float)));  // NaN past n
  }
  fill(ring, 1000, 2, true);
  fused.all_reduce(1000);
  check_every_rank_same_bits(ring, 1000, 2, true);
  for (int r : ring.local_ranks()) {
    const std::vector<float> all = copy_back(ring, r, 4096);
    std::size_t touched = 0;
    for (std::size_t i = 1000; i < all.size(); ++i) touched += !std::isnan(all[i]);
    CHECK(touched == 0);
  }

  Ring one(std::vector<int>{0}, 1000);
  FusedRing alone(one);
  fill(one, 1000, 3, true);
  alone.all_reduce(1000);
  check_every_rank(one, 1000, 3, true);
}

TEST_CASE("the fused ring across every GPU of this machine, one rank per GPU and two per GPU", "[gpu][fused_ring]") {
  PMPP_REQUIRE_GPU();
  const int gpus = gpu_count();
  if (gpus < 2) SKIP("this machine has " << gpus << " GPU; the ring across GPUs needs 2 or more");
  for (int per_gpu : {1, 2}) {
    std::vector<int> devices;
    for (int r = 0; r < gpus * per_gpu; ++r) devices.push_back(r % gpus);
    Ring ring(devices, kLengths.back());
    FusedRing fused(ring, {1024, 0});
    for (std::size_t n : kLengths) {
      INFO(gpus << " GPUs, " << per_gpu << " per GPU, n = " << n);
      fill(ring, n, n, true);
      fused.all_reduce(n);
      check_every_rank_same_bits(ring, n, n, true);
    }
  }
}
