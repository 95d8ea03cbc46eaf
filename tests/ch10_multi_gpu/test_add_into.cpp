// The copy-engine ring's reduce kernel over awkward lengths and alignments: every element added once,
// nothing outside the piece touched, the source left unchanged; and the copy kernel that measures the
// links (sm_copy) the same way.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "gpu_test.hpp"
#include "pmpp/device_buffer.hpp"

using namespace pmpp::ch10::multi_gpu;

TEST_CASE("add_into adds src into dst for any length and alignment", "[gpu][add_into]") {
  PMPP_REQUIRE_GPU();
  constexpr std::size_t kGuard = 64;
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5},
                            std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{1000003}}) {
    for (std::size_t dst_offset : {0, 1, 2, 3}) {
      for (std::size_t src_offset : {0, 1}) {
        // dst: the piece between guard bands of NaN; src: integers, so the sums are exact.
        std::vector<float> dst(count + 2 * kGuard, NAN), src(count + src_offset);
        for (std::size_t i = 0; i < count; ++i) {
          dst[kGuard + i] = all_reduce_input(1, 0, i, true);
          src[src_offset + i] = all_reduce_input(1, 1, i, true);
        }
        // dst starts dst_offset floats into its allocation: 4-byte aligned, not always 16-byte aligned.
        pmpp::DeviceBuffer<float> d_all(dst_offset + dst.size());
        CUDA_CHECK(cudaMemset(d_all.data(), 0, d_all.bytes()));
        CUDA_CHECK(cudaMemcpy(d_all.data() + dst_offset, dst.data(), dst.size() * sizeof(float), cudaMemcpyHostToDevice));
        pmpp::DeviceBuffer<float> d_src(src.empty() ? std::vector<float>{0.0f} : src);
        add_into(d_all.data() + dst_offset + kGuard, d_src.data() + src_offset, count, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> all = d_all.to_host();
        std::size_t wrong = 0, guards = 0;
        for (std::size_t i = 0; i < dst.size(); ++i) {
          const float got = all[dst_offset + i];
          if (i < kGuard || i >= kGuard + count)
            guards += !std::isnan(got);
          else
            wrong += got != dst[i] + src[src_offset + i - kGuard];
        }
        INFO("count " << count << ", dst offset " << dst_offset << ", src offset " << src_offset);
        CHECK(wrong == 0);
        CHECK(guards == 0);
        if (!src.empty()) CHECK(d_src.to_host() == src);
      }
    }
  }
}

TEST_CASE("sm_copy copies any length, nothing outside it", "[gpu][sm_copy]") {
  PMPP_REQUIRE_GPU();
  constexpr std::size_t kGuard = 64;  // floats: the copy starts 16-byte aligned, after a guard band
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5},
                            std::size_t{1000003}}) {
    std::vector<float> dst(count + 2 * kGuard, NAN), src(count);
    for (std::size_t i = 0; i < count; ++i) src[i] = all_reduce_input(2, 0, i, true);
    pmpp::DeviceBuffer<float> d_dst(dst);
    pmpp::DeviceBuffer<float> d_src(src.empty() ? std::vector<float>{0.0f} : src);
    sm_copy(d_dst.data() + kGuard, d_src.data(), count, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = d_dst.to_host();
    std::size_t wrong = 0, guards = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (i < kGuard || i >= kGuard + count)
        guards += !std::isnan(got[i]);
      else
        wrong += got[i] != src[i - kGuard];
    }
    INFO("count " << count);
    CHECK(wrong == 0);
    CHECK(guards == 0);
  }
}
