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
// with: honest_max.inc
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ch10/max_reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace {

void honest(const float* in, std::size_t n, float* result, unsigned* best, cudaStream_t stream) {
  launch_honest_max(in, n, result, best, stream);
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
