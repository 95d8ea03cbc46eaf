// Runs one chapter-10 stage on host data the way a careful test should: the output poisoned with NaN
// and surrounded by guard bands, scratch zeroed once and reused, every launch repeated (an output or
// counter that is not reset shows as a different second answer), and the input copied back to prove
// it was left unchanged where the stage promises it.
//
// Repeated runs must give the same bits when every partial sum is exact, whatever order the blocks'
// atomics land in. On random floats they need not: blocks that finish in a different order round
// differently (stages 04, 05), so those callers check each run against the rounding bound instead.
#pragma once

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/device_buffer.hpp"

namespace ch10_test {

inline constexpr std::size_t kGuard = 64;  // floats of poison before and after the output

struct StageRun {
  float value = NAN;          ///< the first run's result
  std::vector<float> values;  ///< every run's result
  pmpp::ch10::ReductionLaunch launch;
};

/// Reduce @p in with @p stage, @p runs times on the same buffers; with @p same_bits, every run must give
/// the same bits as the first. @p offset floats precede the input in its allocation (an input that is
/// not 16-byte aligned).
inline StageRun run_stage(const pmpp::ch10::Stage& stage, const std::vector<float>& in,
                          pmpp::ch10::Op op = pmpp::ch10::Op::sum, int runs = 2, std::size_t offset = 0,
                          bool same_bits = true) {
  std::vector<float> padded(offset, -7.0f);
  padded.insert(padded.end(), in.begin(), in.end());
  pmpp::DeviceBuffer<float> d_in(padded.empty() ? std::vector<float>{-7.0f} : padded);
  pmpp::DeviceBuffer<float> d_out(1 + 2 * kGuard);
  d_out.poison();
  pmpp::DeviceBuffer<unsigned char> scratch;
  if (stage.scratch_bytes != nullptr) {
    scratch = pmpp::DeviceBuffer<unsigned char>(std::max<std::size_t>(stage.scratch_bytes(in.size(), op), 1));
    CUDA_CHECK(cudaMemset(scratch.data(), 0, scratch.bytes()));
  }
  const pmpp::ch10::ReduceArgs args{d_in.data() + offset, d_out.data() + kGuard, in.size(), op, scratch.data()};

  StageRun first;
  for (int r = 0; r < runs; ++r) {
    if (stage.in_place && r > 0) d_in.copy_from(padded.data(), padded.size());  // stages 01-02 consumed it
    const pmpp::ch10::ReductionLaunch launch = stage.launch(args);
    CUDA_CHECK(cudaDeviceSynchronize());
    const float value = d_out.to_host()[kGuard];
    if (r == 0) first = {value, {}, launch};
    first.values.push_back(value);
    if (r > 0 && same_bits) {
      INFO(stage.id << " run " << r + 1 << " gave " << value << ", run 1 gave " << first.value);
      CHECK(std::memcmp(&value, &first.value, sizeof value) == 0);
    }
  }
  const auto all = d_out.to_host();
  std::size_t guards_written = 0;
  for (std::size_t i = 0; i < kGuard; ++i) guards_written += !std::isnan(all[i]) + !std::isnan(all[kGuard + 1 + i]);
  CHECK(guards_written == 0);
  if (!stage.in_place && !padded.empty()) CHECK(d_in.to_host() == padded);
  return first;
}

}  // namespace ch10_test
