/// @file to_tf32.cuh
/// @brief The device's rounding of a float to TF32, for the tensor-core stages 06 and 08 (their host
/// side rounds with tf32_round(), convolution.hpp, to the same result).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace pmpp::ch07 {

/// x rounded to TF32 (10 mantissa bits, ties away from zero). Code compiled for GPUs below compute
/// capability 8.0, which have no such instruction (and no stage that needs it), returns x.
__device__ __forceinline__ float to_tf32(float x) {
#if __CUDA_ARCH__ >= 800
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
#else
  return x;
#endif
}

}  // namespace pmpp::ch07
