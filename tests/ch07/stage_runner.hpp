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

/// How to call the stage, beyond the problem itself.
struct RunOptions {
  int tile = 0;                 ///< Conv2dArgs::tile (stage 03's input tile; 0: its default)
  std::size_t misalign = 0;     ///< floats by which input and output start past a 16-byte boundary
};

inline std::vector<float> run_stage(const pmpp::ch07::Stage& stage, const std::vector<float>& in,
                                    const std::vector<float>& filter, int width, int height, int radius,
                                    RunOptions options = {}) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  const std::size_t shift = options.misalign;
  // The input sits `shift` floats into its buffer, behind a NaN prefix that no tap may read into a result.
  std::vector<float> padded_in(shift, NAN);
  padded_in.insert(padded_in.end(), in.begin(), in.end());
  pmpp::DeviceBuffer<float> d_in(padded_in), d_filter(filter), d_out(pixels + 2 * kGuard + shift);
  d_out.poison();
  if (stage.upload_filter) stage.upload_filter(filter.data(), radius);
  stage.launch({d_in.data() + shift, d_filter.data(), d_out.data() + kGuard + shift, width, height, radius,
                options.tile});
  CUDA_CHECK(cudaDeviceSynchronize());

  const auto all = d_out.to_host();
  std::size_t guards_written = 0;
  for (std::size_t i = 0; i < kGuard + shift; ++i) guards_written += !std::isnan(all[i]);
  for (std::size_t i = 0; i < kGuard; ++i) guards_written += !std::isnan(all[kGuard + shift + pixels + i]);
  CHECK(guards_written == 0);
  const auto in_after = d_in.to_host();
  CHECK(std::vector<float>(in_after.begin() + shift, in_after.end()) == in);
  return {all.begin() + kGuard + shift, all.begin() + kGuard + shift + pixels};
}

}  // namespace ch07_test
