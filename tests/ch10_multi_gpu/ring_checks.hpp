// What the tests of both rings share: filling every rank's vector, reading one back, and checking every
// element of every rank against the CPU's sums.
#pragma once

#include <cuda_runtime_api.h>

#include <catch2/catch_test_macros.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu::testing {

inline int gpu_count() {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  return count;
}

inline void fill(Ring& ring, std::size_t n, std::uint64_t seed, bool exact) {
  for (int r : ring.local_ranks()) {
    CUDA_CHECK(cudaSetDevice(ring.device(r)));
    fill_inputs(ring.vector(r), n, seed, r, exact);
  }
}

inline std::vector<float> copy_back(Ring& ring, int r, std::size_t n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaSetDevice(ring.device(r)));
  if (n > 0) CUDA_CHECK(cudaMemcpy(host.data(), ring.vector(r), n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// Every rank's first n floats against the CPU's sums, times `factor` (an all-reduce run twice in
// place leaves p times the sum).
inline void check_every_rank(Ring& ring, std::size_t n, std::uint64_t seed, bool exact, float factor = 1) {
  for (int r : ring.local_ranks()) {
    if (factor == 1) {
      CUDA_CHECK(cudaSetDevice(ring.device(r)));
      const VectorCheck check = check_all_reduced(ring.vector(r), n, seed, ring.ranks(), exact);
      INFO("rank " << r << ": " << check.summary());
      CHECK(check.ok());
      continue;
    }
    const std::vector<float> got = copy_back(ring, r, n);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      float want = 0;
      for (int q = 0; q < ring.ranks(); ++q) want += all_reduce_input(seed, q, i, exact);
      wrong += got[i] != factor * want;
    }
    INFO("rank " << r << " after a second all-reduce in place");
    CHECK(wrong == 0);
  }
}

// Vector lengths that are no multiple of anything a ring cuts them into.
inline const std::vector<std::size_t> kLengths = {1,    2,    63,     64, 65, 319, 321,
                                                  1000, 100003, (std::size_t{1} << 20) + 17};

}  // namespace pmpp::ch10::multi_gpu::testing
