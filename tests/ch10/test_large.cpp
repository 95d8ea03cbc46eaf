// Opt-in ([.large], hidden by default): more than 2^32 floats (over 16 GiB), so that every index,
// segment start and byte offset of the multi-block stages must be 64-bit. Run it with
//   ch10_gpu_tests "[.large]"
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "gpu_test.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/parallel.hpp"

using namespace pmpp::ch10;

namespace {
// Past 2^32, and not a multiple of any stage's segment.
constexpr std::size_t kN = (std::size_t{1} << 32) + (std::size_t{1} << 20) + 7;

// x[i] = i % 7 - 3: every 7 consecutive values sum to 0, so every contiguous run sums to at most 6 in
// magnitude and the running totals stay far below 2^24: float adds them exactly in any grouping the
// stages use. Near the end sit one +5000 and one -5000, which a stage reading only the first 2^32
// elements (or wrapping an index) misses.
constexpr std::size_t kPeak = kN - 3, kTrough = kN - 2;

float value_at(std::size_t i) {
  if (i == kPeak) return 5000.0f;
  if (i == kTrough) return -5000.0f;
  return static_cast<float>(static_cast<int>(i % 7) - 3);
}

double expected_sum() {
  // Whole periods of 7 sum to 0; the first r = kN % 7 values of a period sum to r(r-1)/2 - 3r.
  const double r = static_cast<double>(kN % 7);
  double sum = r * (r - 1) / 2 - 3 * r;
  sum += (5000.0 - (static_cast<double>(kPeak % 7) - 3)) + (-5000.0 - (static_cast<double>(kTrough % 7) - 3));
  return sum;
}
}  // namespace

TEST_CASE("more than 2^32 elements: 64-bit indices in stages 04-06", "[gpu][.large]") {
  PMPP_REQUIRE_GPU();
  std::vector<float> host(kN);
  pmpp::parallel_for(static_cast<std::int64_t>(kN), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      host[static_cast<std::size_t>(i)] = value_at(static_cast<std::size_t>(i));
  });
  pmpp::DeviceBuffer<float> in(host);
  host.clear();
  host.shrink_to_fit();
  pmpp::DeviceBuffer<float> out(1);

  const struct {
    Op op;
    double want;
  } cases[] = {{Op::sum, expected_sum()}, {Op::max, 5000.0}, {Op::min, -5000.0}};
  for (const Stage& stage : stages()) {
    if (stage.max_n < kN) continue;
    for (const auto& c : cases) {
      if (!stage.all_operators && c.op != Op::sum) continue;
      pmpp::DeviceBuffer<unsigned char> scratch;
      if (stage.scratch_bytes != nullptr) {
        scratch = pmpp::DeviceBuffer<unsigned char>(std::max<std::size_t>(stage.scratch_bytes(kN, c.op), 1));
        CUDA_CHECK(cudaMemset(scratch.data(), 0, scratch.bytes()));
      }
      out.poison();
      const ReductionLaunch launch = stage.launch({in.data(), out.data(), kN, c.op, scratch.data()});
      CUDA_CHECK(cudaDeviceSynchronize());
      const float got = out.to_host()[0];
      INFO(stage.id << " " << op_name(c.op) << " of " << kN << " floats (grid " << launch.grid << "): got " << got
                    << ", want " << c.want);
      CHECK(static_cast<double>(got) == c.want);
    }
  }
}
