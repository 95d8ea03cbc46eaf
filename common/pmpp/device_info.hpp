/// @file device_info.hpp
/// @brief Is there a GPU, and what are its limits (SMs, caches, constant and shared memory, DRAM peak)?
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "pmpp/cuda_check.hpp"
#include "pmpp/gpu_diagnosis.hpp"

namespace pmpp {

/// True when this build can run on the current GPU; false when the machine has no GPU (no driver, or
/// no device), the one case that is a skip. A GPU this build cannot use (a driver older than the
/// runtime, no code for its architecture) is an error, not a skip: this throws std::runtime_error
/// with one line that names the fix (see gpu_diagnosis.hpp).
/// @param[out] why  if not null, receives why there is no GPU when the answer is false.
inline bool gpu_available(std::string* why = nullptr) {
  const GpuDiagnosis diagnosis = diagnose_gpu(probe_gpu(), this_build());
  if (diagnosis.verdict == GpuVerdict::ready) return true;
  if (diagnosis.verdict != GpuVerdict::no_gpu) throw std::runtime_error(diagnosis.message);
  if (why) *why = diagnosis.message;
  return false;
}

/// FP32 lanes (FMAs per clock) of one SM. Not a device attribute, so from the architecture tables of
/// the CUDA C++ Programming Guide: 64 on Turing (7.5) and A100 (8.0), 128 on 8.6/8.9 and Hopper.
inline int fp32_lanes_per_sm(int major, int minor) {
  if (major < 8 || (major == 8 && minor == 0)) return 64;
  return 128;
}

/// Dense TF32 tensor-core operations (a multiply-add counts two) per clock of one SM; 0 where unknown
/// or absent (compute capability 7.5 has no TF32). Not a device attribute: the dense (not sparse) rate of
/// each architecture's published figures, divided by its SMs and boost clock: A100 (8.0) 156 TFLOP/s on
/// 108 SMs at 1410 MHz = 1024; GA10x (8.6) and Ada (8.9) 256; H100 (9.0) 494.7 TFLOP/s on 132 SMs at
/// 1830 MHz = 2048. Later architectures: unknown here (0) until their figures are checked.
inline int tf32_dense_flops_per_sm_per_clock(int major, int minor) {
  if (major == 8 && minor == 0) return 1024;
  if (major == 8 && (minor == 6 || minor == 9)) return 256;
  if (major == 9 && minor == 0) return 2048;
  return 0;
}

/// What the programs print about the device and use to compute "% of peak".
struct DeviceInfo {
  std::string name;
  int major = 0, minor = 0;             ///< compute capability
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t constant_bytes = 0;       ///< __constant__ memory (64 KiB on every current GPU)
  std::size_t shared_per_block = 0;     ///< default limit per block (48 KiB)
  std::size_t shared_per_block_optin = 0;  ///< limit after cudaFuncSetAttribute raises it
  std::size_t shared_per_sm = 0;
  int max_threads_per_block = 0;
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  double peak_dram_gbps = 0;            ///< 2 transfers per clock (DDR) x clock x bus width
  int sm_clock_khz = 0;                 ///< peak SM clock; 0 where the runtime does not report it
  double peak_fp32_gflops = 0;          ///< SMs x FP32 lanes x 2 (an FMA is two operations) x clock; 0 if unknown
  double peak_tf32_gflops = 0;          ///< SMs x tf32_dense_flops_per_sm_per_clock x clock; 0 if unknown
  std::string build;                    ///< what the build holds and what runs: "built for sm_90 + PTX 9.0, running its sm_90 code"

  std::string compute_capability() const { return std::to_string(major) + "." + std::to_string(minor); }
  /// Milliseconds to move @p bytes at peak DRAM bandwidth: the floor for traffic that must reach DRAM
  /// (0 when the peak is unknown).
  double ms_at_peak_dram(double bytes) const { return peak_dram_gbps > 0 ? bytes / (peak_dram_gbps * 1e6) : 0; }
  /// Milliseconds for @p flops FP32 operations at the peak rate: the floor for arithmetic (0 when unknown).
  double ms_at_peak_fp32(double flops) const { return peak_fp32_gflops > 0 ? flops / (peak_fp32_gflops * 1e6) : 0; }
  /// Milliseconds for @p flops TF32 tensor-core operations at the dense peak rate (0 when unknown).
  double ms_at_peak_tf32(double flops) const { return peak_tf32_gflops > 0 ? flops / (peak_tf32_gflops * 1e6) : 0; }
  /// "NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 50 MiB L2, 227 KiB shared/block opt-in, peak DRAM 3352 GB/s,
  /// peak FP32 66.9 TFLOP/s); built for sm_90 + PTX 9.0, running its sm_90 code": the FP32 part only where
  /// the clock is known, the build part only where it was asked.
  std::string summary() const {
    char line[384];
    std::snprintf(line, sizeof line, "%s (cc %s, %d SMs, %.0f MiB L2, %.0f KiB shared/block opt-in, peak DRAM %.0f GB/s",
                  name.c_str(), compute_capability().c_str(), sm_count, l2_bytes / 1048576.0,
                  shared_per_block_optin / 1024.0, peak_dram_gbps);
    std::string s = line;
    if (peak_fp32_gflops > 0) {
      std::snprintf(line, sizeof line, ", peak FP32 %.1f TFLOP/s", peak_fp32_gflops / 1000.0);
      s += line;
    }
    s += ")";
    return build.empty() ? s : s + "; " + build;
  }
};

/// One attribute of the current device: cheap, unlike cudaGetDeviceProperties, so launchers may ask at
/// every launch.
inline int current_device_attribute(cudaDeviceAttr what) {
  int device = 0, value = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
  return value;
}

/// The shared memory one block may have on the current device when its kernel asks for more than the
/// default 48 KB (cudaFuncAttributeMaxDynamicSharedMemorySize): 64 KB on compute capability 7.5, up to
/// 227 KB on 9.0. One attribute, cheap enough to ask at every launch.
inline int current_shared_per_block_optin() {
  return current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
}

/// Query device @p device. CUDA 13 removed the clock fields from cudaDeviceProp, so the memory clock
/// and bus width come from cudaDeviceGetAttribute.
inline DeviceInfo query_device(int device = 0) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceInfo info;
  info.name = prop.name;
  info.major = prop.major;
  info.minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.constant_bytes = prop.totalConstMem;
  info.shared_per_block = prop.sharedMemPerBlock;
  info.shared_per_block_optin = prop.sharedMemPerBlockOptin;
  info.shared_per_sm = prop.sharedMemPerMultiprocessor;
  info.max_threads_per_block = prop.maxThreadsPerBlock;
  CUDA_CHECK(cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&info.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  info.peak_dram_gbps = 2.0 * info.memory_clock_khz * 1e3 * (info.bus_width_bits / 8.0) / 1e9;
  // The SM clock is an attribute too; a runtime that does not know it leaves the FP32 peak unknown.
  if (cudaDeviceGetAttribute(&info.sm_clock_khz, cudaDevAttrClockRate, device) != cudaSuccess) {
    info.sm_clock_khz = 0;
    cudaGetLastError();  // must not surface at the next check
  }
  info.peak_fp32_gflops =
      2.0 * info.sm_count * fp32_lanes_per_sm(info.major, info.minor) * (info.sm_clock_khz * 1e3) / 1e9;
  info.peak_tf32_gflops =
      info.sm_count * static_cast<double>(tf32_dense_flops_per_sm_per_clock(info.major, info.minor)) *
      (info.sm_clock_khz * 1e3) / 1e9;
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  if (current == device) {  // the probe asks the current device which of the build's code it runs
    const BuildArchitectures& built = this_build().architectures;
    info.build = "built for " + describe(built) + ", " + running_text(probe_gpu(), built);
  }
  return info;
}

}  // namespace pmpp
