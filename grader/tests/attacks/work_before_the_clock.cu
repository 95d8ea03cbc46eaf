// attack: does the timed work before the clock starts. On its first call on 2^28 floats it answers
//         honestly and leaves a thread behind that watches the result (a 4-byte copy every few
//         microseconds, on a stream of its own): as soon as the test poisons it for the next run (the
//         untimed preparation, after the new input is in place), the thread computes the maximum into
//         it, and the timed call only waits for the thread's word. Defeated: the worker is held still
//         from each timed call's reply to the next call (grader/trusted/hold_still.hpp), so the thread
//         sees the poison only once the clock runs, and the call is timed for the whole work. Its own
//         kernel is honest, and fast: on an H200 0.46 ms a call less its fixed cost, against the
//         solution's 0.68 ms, so it earns what the solution earns, for what its kernel does.
// exercise: max_reduction
// base: none
// earns: as the solution
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "ch10/max_reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace {

constexpr unsigned kPoison = 0xFFFFFFFFu;  // the bits of the tests' poisoned result

// Floats as unsigned integers in the same order, for atomicMax.
__device__ unsigned ordered(float v) {
  const unsigned b = __float_as_uint(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ float unordered(unsigned b) { return __uint_as_float((b & 0x80000000u) ? (b & 0x7fffffffu) : ~b); }

__device__ float block_max(float m) {
  __shared__ float warps[32];
  for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, offset));
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = m;
  __syncthreads();
  m = threadIdx.x < blockDim.x / 32 ? warps[threadIdx.x] : -INFINITY;
  if (threadIdx.x < 32)
    for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, offset));
  __syncthreads();
  return m;
}

__global__ void honest_max(const float* in, std::size_t n, unsigned* best) {
  float m = -INFINITY;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    m = fmaxf(m, in[i]);
  m = block_max(m);
  if (threadIdx.x == 0) atomicMax(best, ordered(m));
}

__global__ void to_float(const unsigned* best, float* result) { *result = unordered(*best); }

void honest(const float* in, std::size_t n, float* result, unsigned* best, cudaStream_t stream) {
  const unsigned minus_infinity = 0x007fffffu;  // ordered(-inf): an empty input gives -inf
  CUDA_CHECK(cudaMemcpyAsync(best, &minus_infinity, sizeof minus_infinity, cudaMemcpyHostToDevice, stream));
  if (n > 0) honest_max<<<1024, 256, 0, stream>>>(in, n, best);
  to_float<<<1, 1, 0, stream>>>(best, result);
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

struct Watch {
  const float* in;
  float* result;
  std::atomic<unsigned long> done{0};  // answers the thread has put in place
  unsigned long seen = 0;              // answers the calls have handed back
};
Watch* watch = nullptr;

void watch_result(Watch* w) {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  unsigned* best = nullptr;
  CUDA_CHECK(cudaMalloc(&best, sizeof(unsigned)));
  for (;;) {
    unsigned bits = 0;
    CUDA_CHECK(cudaMemcpyAsync(&bits, w->result, sizeof bits, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (bits == kPoison) {
      honest(w->in, std::size_t{1} << 28, w->result, best, stream);
      ++w->done;
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

}  // namespace

void pmpp::ex10::max_reduction(const float* in, std::size_t n, float* result) {
  if (watch != nullptr && watch->in == in && watch->result == result) {
    while (watch->done.load() == watch->seen) {  // the work was done while the clock was not running
    }
    watch->seen = watch->done.load();
    return;
  }
  unsigned* best = nullptr;
  CUDA_CHECK(cudaMalloc(&best, sizeof(unsigned)));
  honest(in, n, result, best, nullptr);
  CUDA_CHECK(cudaFree(best));
  if (n == (std::size_t{1} << 28) && watch == nullptr) {
    watch = new Watch{in, result};
    std::thread(watch_result, watch).detach();
  }
}
