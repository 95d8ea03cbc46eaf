/// @file timing.hpp
/// @brief Time one kernel launch: CUDA events, warm-up, many samples, the median, L2 flushed between.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/l2_flush.hpp"

namespace pmpp {

struct TimingOptions {
  int warmup = 3;        ///< untimed launches first: module load and cold TLBs stay out of the numbers
  int repetitions = 25;  ///< timed samples; the median ignores the odd slow one
  bool flush_l2 = true;  ///< evict L2 before each sample (by reading) so no input is served from a warm cache
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int samples = 0;
};

/// Owns the events and the L2-sized scratch buffer, so repeated measurements do not reallocate.
class KernelTimer {
 public:
  explicit KernelTimer(TimingOptions options = {}) : options_(options) {
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
    if (options_.flush_l2) {
      int device = 0, l2 = 0;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
      scratch_ = DeviceBuffer<unsigned char>(2 * static_cast<std::size_t>(l2));  // twice L2: evicts it all
      CUDA_CHECK(cudaMemset(scratch_.data(), 0x5A, scratch_.bytes()));  // written once, then only read
      sink_ = DeviceBuffer<unsigned int>(1);
    }
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  ~KernelTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  /// Time @p launch, a callable that enqueues the kernel(s) on the default stream. Only the work
  /// between the two events counts; the L2 flush happens before the start event.
  template <class Launch>
  Timing time(Launch&& launch) {
    return time([] {}, launch);
  }

  /// As time(launch), with @p before_each enqueued before every launch (warm-up and timed) and
  /// outside the timed interval: for kernels that overwrite their input, it restores the input.
  template <class Setup, class Launch>
  Timing time(Setup&& before_each, Launch&& launch) {
    for (int i = 0; i < options_.warmup; ++i) {
      before_each();
      launch();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> samples;
    samples.reserve(options_.repetitions);
    for (int i = 0; i < options_.repetitions; ++i) {
      before_each();
      if (scratch_.size() > 0) flush_l2_by_reading(scratch_.data(), scratch_.bytes(), sink_.data());
      CUDA_CHECK(cudaEventRecord(start_));
      launch();
      CUDA_CHECK(cudaEventRecord(stop_));
      CUDA_CHECK(cudaEventSynchronize(stop_));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
      samples.push_back(ms);
    }
    std::sort(samples.begin(), samples.end());
    Timing t;
    t.samples = static_cast<int>(samples.size());
    t.min_ms = samples.front();
    t.max_ms = samples.back();
    const std::size_t mid = samples.size() / 2;
    t.median_ms = samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
    return t;
  }

 private:
  TimingOptions options_;
  cudaEvent_t start_{}, stop_{};
  DeviceBuffer<unsigned char> scratch_;
  DeviceBuffer<unsigned int> sink_;
};

/// Effective bandwidth in GB/s (1e9 bytes per second) for @p bytes moved in @p ms.
inline double gb_per_s(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }
/// Arithmetic rate in GFLOP/s for @p flops in @p ms.
inline double gflop_per_s(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e9 : 0; }

}  // namespace pmpp
