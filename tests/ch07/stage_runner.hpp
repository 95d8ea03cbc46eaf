// Runs one chapter-7 stage on host data the way a careful test should: output poisoned with NaN and
// surrounded by guard bands, input copied back to prove it was left unchanged.
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/device_buffer.hpp"

namespace ch07_test {

inline constexpr std::size_t kGuard = 64;  // floats of poison before and after the output

inline std::vector<float> run_stage(const pmpp::ch07::Stage& stage, const std::vector<float>& in,
                                    const std::vector<float>& filter, int width, int height, int radius) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  pmpp::DeviceBuffer<float> d_in(in), d_filter(filter), d_out(pixels + 2 * kGuard);
  d_out.poison();
  if (stage.upload_filter) stage.upload_filter(filter.data(), radius);
  stage.launch({d_in.data(), d_filter.data(), d_out.data() + kGuard, width, height, radius, 0});
  CUDA_CHECK(cudaDeviceSynchronize());

  const auto all = d_out.to_host();
  std::size_t guards_written = 0;
  for (std::size_t i = 0; i < kGuard; ++i)
    guards_written += !std::isnan(all[i]) + !std::isnan(all[kGuard + pixels + i]);
  CHECK(guards_written == 0);
  CHECK(d_in.to_host() == in);
  return {all.begin() + kGuard, all.begin() + kGuard + pixels};
}

}  // namespace ch07_test
