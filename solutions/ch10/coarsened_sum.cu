// =================================================================================================
// Exercise 10.2: coarsened sum reduction for any length              12 points · PMPP 4th ed., 10.8
//
// Task:        the coarsened kernel of section 10.8 (Fig 10.15): each thread first adds
//              2 * COARSE_FACTOR inputs on its own, serially and without barriers, and only then does
//              the block run its shared-memory tree, so fewer blocks wait at fewer barriers. The
//              text's kernel assumes n is a multiple of a block's segment; this one must take any
//              n, including more than 2^32 inputs. The launcher is written. Fill in TODO(ex10.2):
//              the serial loop and its bounds test; the starter adds only one input per thread.
// Interface:   coarsened_sum.hpp (do not change it: the tests call it).
// Tests:       tests/exercises/ch10/test_coarsened_sum.cpp. The result is poisoned with NaN and
//              framed by guard bands; the input is checked unchanged.
//                4 points  small integers, exact: n from 0 to 2^21 + 1 (a segment +- 1, odd, prime),
//                          and a second call gives the same result
//                2 points  a single 1 among zeros is counted exactly once, wherever it is
//                2 points  random floats, within the rounding bound of the additions' depth
//                2 points  n = 2^32 + 37: indices must be 64-bit (16 GiB of addresses, but only
//                          about 70 MiB of GPU memory: the zeros share one block)
//                2 points  speed: at least half the solution's throughput on 2^28 floats, both
//                          timed in the same run on the same GPU (every timed result checked)
// Try it:      scripts/grade --exercise ex10.2
// =================================================================================================
#include <cuda_runtime.h>

#include <climits>
#include <stdexcept>

#include "ch10/coarsened_sum.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ex10 {

// ---- Kernel -------------------------------------------------------------------------------------

__global__ void CoarsenedSumReductionKernel(const float* __restrict__ input, std::size_t n, float* output) {
  __shared__ float input_s[SUM_BLOCK_DIM];
  // 64-bit: with more than 2^32 inputs a 32-bit segment start would wrap around.
  const std::size_t segment = static_cast<std::size_t>(COARSE_FACTOR) * 2 * blockDim.x * blockIdx.x;
  const std::size_t i = segment + threadIdx.x;
  const unsigned t = threadIdx.x;

  // Serial phase: consecutive threads read consecutive inputs at every step, so each step coalesces.
  float sum = 0.0f;
  for (int tile = 0; tile < 2 * COARSE_FACTOR; ++tile) {
    const std::size_t k = i + static_cast<std::size_t>(tile) * blockDim.x;
    if (k < n) sum += input[k];  // only the last block's segment can be partial
  }
  input_s[t] = sum;
  // The convergent shared-memory tree of Fig 10.11 over the threads' sums.
  for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // the values this step reads were written by other threads in the last step
    if (t < stride) input_s[t] += input_s[t + stride];
  }
  if (t == 0) atomicAdd(output, input_s[0]);
}

// ---- Launcher -----------------------------------------------------------------------------------

void coarsened_sum_reduction(const float* in, std::size_t n, float* result) {
  CUDA_CHECK(cudaMemset(result, 0, sizeof(float)));  // the blocks add into it; 0.0f is all zero bits
  if (n == 0) return;
  // Each block covers a segment of 2 * COARSE_FACTOR * SUM_BLOCK_DIM inputs.
  const std::size_t blocks = ceil_div<std::size_t>(n, 2 * static_cast<std::size_t>(COARSE_FACTOR) * SUM_BLOCK_DIM);
  if (blocks > INT_MAX) throw std::invalid_argument("coarsened_sum_reduction: n too large for one grid");
  CoarsenedSumReductionKernel<<<static_cast<unsigned>(blocks), SUM_BLOCK_DIM>>>(in, n, result);
  CUDA_CHECK_LAUNCH();
}

}  // namespace pmpp::ex10
