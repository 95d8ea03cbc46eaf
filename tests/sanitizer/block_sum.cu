// =================================================================================================
// Sanitizer check: a shared-memory tree sum, with and without its barrier
//
// What it is:  each block of BLOCK_DIM threads adds 2 * BLOCK_DIM inputs: every thread first adds two
//              inputs into its shared-memory slot, then the block halves the active range each step
//              (the shape of the shared-memory reduction, PMPP section 10.6, Fig 10.11). Block sums
//              go to a partial-sums array that the host adds up.
// Why:         `--without-barrier` drops the __syncthreads() that orders each step's reads after the
//              previous step's writes. The result may still come out right on a given run (warps
//              often happen to finish in order), which is exactly why the race needs a tool:
//              compute-sanitizer's racecheck must report the hazard. The CTest entries prove that it
//              does, and that the same kernel with the barrier is clean.
// Exit status: 0 sum correct, 1 sum wrong, 2 bad option, 3 CUDA error, 77 no GPU.
// =================================================================================================
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "pmpp/check.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/program.hpp"
#include "pmpp/random.hpp"

namespace {

// 256 threads are 8 warps: the missing barrier races between warps, not only inside one.
constexpr unsigned BLOCK_DIM = 256;

// ---- Kernel -------------------------------------------------------------------------------------

template <bool kWithBarrier>
__global__ void shared_tree_sum_kernel(const float* __restrict__ input, float* __restrict__ partial) {
  __shared__ float sum_s[BLOCK_DIM];
  const unsigned t = threadIdx.x;
  const unsigned long long first = 2ull * BLOCK_DIM * blockIdx.x;
  sum_s[t] = input[first + t] + input[first + BLOCK_DIM + t];
  for (unsigned stride = BLOCK_DIM / 2; stride >= 1; stride /= 2) {
    // The barrier makes every write of the previous step visible before any thread reads
    // sum_s[t + stride], which another thread (usually in another warp) wrote.
    if constexpr (kWithBarrier) __syncthreads();
    if (t < stride) sum_s[t] += sum_s[t + stride];
  }
  if (t == 0) partial[blockIdx.x] = sum_s[0];
}

// ---- Launcher -----------------------------------------------------------------------------------

void block_sums(const float* input, float* partial, unsigned blocks, bool with_barrier) {
  // One block per 2 * BLOCK_DIM inputs: the caller sizes the input as a whole number of segments.
  const dim3 block(BLOCK_DIM), grid(blocks);
  if (with_barrier)
    shared_tree_sum_kernel<true><<<grid, block>>>(input, partial);
  else
    shared_tree_sum_kernel<false><<<grid, block>>>(input, partial);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

int main(int argc, char** argv) {
  const char* program = "sanitizer_block_sum";
  return pmpp::guarded_main(program, [&] {
    int blocks = 7;
    std::uint64_t seed = 1;
    bool without_barrier = false;
    pmpp::Cli cli(program, "A shared-memory tree sum, checked against the CPU; --without-barrier removes the "
                           "barrier between the tree's steps so that compute-sanitizer racecheck has a race to find.");
    cli.option("--blocks", blocks, "thread blocks, each summing 512 inputs", 1, 65535)
        .option("--seed", seed, "seed of the random inputs", 0, INT64_MAX)
        .flag("--without-barrier", without_barrier, "drop the __syncthreads() (a deliberate data race)");
    if (!cli.parse(argc, argv)) return int{pmpp::kExitPass};
    if (!pmpp::gpu_or_explain(program)) return int{pmpp::kExitNoGpu};

    // Small integers: every partial sum is exact in float whatever the order of the additions, so a
    // wrong result can only come from a lost or stale value, never from rounding.
    const std::size_t n = 2ull * BLOCK_DIM * static_cast<unsigned>(blocks);
    const std::vector<float> input = pmpp::random_small_ints(n, seed);
    std::vector<double> want(static_cast<std::size_t>(blocks), 0.0);
    for (std::size_t i = 0; i < n; ++i) want[i / (2 * BLOCK_DIM)] += input[i];

    pmpp::DeviceBuffer<float> input_d(input), partial_d(static_cast<std::size_t>(blocks));
    partial_d.poison();
    block_sums(input_d.data(), partial_d.data(), static_cast<unsigned>(blocks), !without_barrier);
    CUDA_CHECK(cudaDeviceSynchronize());
    const pmpp::CheckResult check = pmpp::compare(partial_d.to_host(), want, pmpp::Tolerance::exact());
    std::printf("%s (%s barrier, %d blocks of %u threads): %s\n", program, without_barrier ? "without" : "with",
                blocks, BLOCK_DIM, check.summary().c_str());
    return int{check.ok() ? pmpp::kExitPass : pmpp::kExitCheckFailed};
  });
}
