// attack: does the timed work before the clock starts, on the GPU, where holding the worker still
//         between calls does not reach. On its first call on 2^28 floats it answers honestly and
//         leaves a kernel running in a CUDA context of its own (so the worker's synchronization after
//         each call does not wait for it): it spins until the test poisons the result for the next
//         run (the untimed preparation, after the new input is in place), computes the maximum into
//         it, and raises a flag in mapped host memory. The timed call only waits for the flag. Had it
//         got far ahead, the physics check would flag the call, whose time less its fixed cost would
//         be below the floor of reading the input once. It does not: a GPU runs one process's context
//         at a time, by time slices, so the spinning kernel and the test's own work take turns, and
//         it gains at most the untimed moments around a call. On an H200 its calls took 0.74 to
//         0.95 ms less their fixed cost in speed cases (the solution's 0.67 to 0.83 ms), once 56 ms in
//         a feedback case: it earns what its answers and that speed earn.
// exercise: max_reduction
// base: none
// earns: as the solution
// with: honest_max.inc
#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <thread>

#include "ch10/max_reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace {

constexpr std::size_t kTimed = std::size_t{1} << 28;

struct Shared {  // the watching kernel's own state, in its context's memory
  unsigned best;
  unsigned arrived;
  unsigned round;
};

// Runs for as long as the process: one round per poisoned result. Every block is resident at once
// (one per SM), so blocks may wait for one another.
__global__ void watch(const float* in, float* result, Shared* s, volatile unsigned* answered) {
  volatile unsigned* result_bits = reinterpret_cast<volatile unsigned*>(result);
  volatile unsigned* round = &s->round;
  __shared__ unsigned this_round;
  unsigned seen = 0;
  for (;;) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      while (*result_bits != kPoison) {
      }
      s->best = 0x007fffffu;  // ordered(-inf)
      __threadfence();
      atomicAdd(&s->round, 1u);
    }
    if (threadIdx.x == 0) {
      while (*round == seen) {
      }
      this_round = *round;
    }
    __syncthreads();
    seen = this_round;
    float m = -INFINITY;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < kTimed;
         i += std::size_t{gridDim.x} * blockDim.x)
      m = fmaxf(m, in[i]);
    m = block_max(m);
    if (threadIdx.x == 0) {
      atomicMax(&s->best, ordered(m));
      __threadfence();
      if (atomicAdd(&s->arrived, 1u) == gridDim.x - 1) {
        s->arrived = 0;
        *result_bits = __float_as_uint(unordered(atomicAdd(&s->best, 0u)));
        __threadfence_system();
        *answered = seen;
      }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
      while (*result_bits == kPoison) {
      }
    __syncthreads();
  }
}

void honest(const float* in, std::size_t n, float* result) {
  unsigned* best = nullptr;
  CUDA_CHECK(cudaMalloc(&best, sizeof(unsigned)));
  launch_honest_max(in, n, result, best, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(best));
}

const float* watched_in = nullptr;
const float* watched_result = nullptr;
volatile unsigned* answered = nullptr;  // mapped host memory: the rounds the kernel has answered
unsigned served = 0;                    // the rounds the calls have handed back

// A context of its own, made current on a thread of its own, runs the watching kernel: the worker's
// cudaDeviceSynchronize after each call waits for the primary context's work only.
void start_watching(const float* in, float* result) {
  using CtxCreate = CUresult (*)(CUcontext*, unsigned int, CUdevice);
  using CtxSetCurrent = CUresult (*)(CUcontext);
  void* create = nullptr;
  void* set_current = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxCreate", &create, 12000, cudaEnableDefault, &found));
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxSetCurrent", &set_current, 12000, cudaEnableDefault, &found));
#else
  CUDA_CHECK(cudaGetDriverEntryPoint("cuCtxCreate", &create, cudaEnableDefault, &found));
  CUDA_CHECK(cudaGetDriverEntryPoint("cuCtxSetCurrent", &set_current, cudaEnableDefault, &found));
#endif
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  bool watching = false;
  std::thread([&] {
    CUcontext own = nullptr;
    if (reinterpret_cast<CtxCreate>(create)(&own, 0, device) != CUDA_SUCCESS) return;
    reinterpret_cast<CtxSetCurrent>(set_current)(own);
    Shared* s = nullptr;
    unsigned* flag = nullptr;
    CUDA_CHECK(cudaMalloc(&s, sizeof(Shared)));
    CUDA_CHECK(cudaMemset(s, 0, sizeof(Shared)));
    CUDA_CHECK(cudaHostAlloc(&flag, sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable));
    *flag = 0;
    answered = flag;
    watch<<<sms, 256>>>(in, result, s, flag);
    watching = cudaGetLastError() == cudaSuccess;
  }).join();
  if (!watching) return;
  std::fprintf(stderr, "attack: a kernel in a context of its own watches the result\n");
  watched_in = in;
  watched_result = result;
}

}  // namespace

void pmpp::ex10::max_reduction(const float* in, std::size_t n, float* result) {
  if (watched_in == in && watched_result == result && n == kTimed) {
    while (*answered == served) {  // the work was done while the clock was not running
    }
    served = *answered;
    return;
  }
  honest(in, n, result);
  if (n == kTimed && watched_in == nullptr) start_watching(in, result);
}
