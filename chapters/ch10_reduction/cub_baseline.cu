// The library baseline: cub::DeviceReduce, with the same operators and identities as the stages.
// DeviceReduce::Sum is the reference for the sum; max, min and product go through DeviceReduce::Reduce
// with the stages' own operator objects and identities (DeviceReduce::Max would start from -FLT_MAX,
// not -infinity), which also works with every CCCL a supported toolkit ships (2.3 in CUDA 12.4 has no
// cuda::maximum).
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10 {

namespace {
// One DeviceReduce call: with temp == nullptr it only sets temp_bytes (CUB's two-phase interface).
void cub_call(void* temp, std::size_t& temp_bytes, const float* in, float* out, std::size_t n, Op op) {
  if (op == Op::sum) {
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n));
    return;
  }
  with_operator(op, [&](auto reduce) {
    CUDA_CHECK(cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, n, reduce, reduce.identity()));
  });
}
}  // namespace

std::size_t cub_scratch_bytes(std::size_t n, Op op) {
  std::size_t bytes = 0;
  cub_call(nullptr, bytes, nullptr, nullptr, n, op);
  return bytes;
}

ReductionLaunch cub_reduction(const ReduceArgs& a) {
  std::size_t bytes = cub_scratch_bytes(a.n, a.op);  // host arithmetic only; the caller allocated this much
  cub_call(a.scratch, bytes, a.input, a.output, a.n, a.op);
  ReductionLaunch c;  // CUB picks its own grid and block: left at 0, printed as "-"
  // launches stays 0 ("-"): CUB decides (one kernel for a small input, two for a large one).
  c.rounding_depth = a.n > 0 ? a.n - 1 : 0;  // CUB's order is not ours to know: the any-order bound
  return c;
}

}  // namespace pmpp::ch10
