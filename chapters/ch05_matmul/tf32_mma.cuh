/// @file tf32_mma.cuh
/// @brief The tensor-core instructions of stages 06 and 07, each the plain PTX a student can look up:
/// `cvt.rna.tf32.f32` (round a float to TF32) and `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`
/// (one warp multiplies a 16 x 8 tile of A by an 8 x 8 tile of B into a 16 x 8 tile of C); and stage
/// 07's split of a float into two TF32 parts, which needs no conversion instruction at all.
///
/// TF32 is a float with its mantissa cut from 23 bits to 10: same exponent range, about three decimal
/// digits. Both instructions exist from compute capability 8.0 on. Compiled for an older GPU they trap;
/// the launchers never start a kernel there (tensor_core_unavailable says why).
///
/// The fragments (PTX ISA, "Matrix fragments for mma.m16n8k8" with .tf32): lane l of the warp is in group
/// g = l / 4 with t = l % 4 inside it, and holds
///   A (16 x 8, row-major)  a[0] = A[g][t]   a[1] = A[g+8][t]   a[2] = A[g][t+4]   a[3] = A[g+8][t+4]
///   B (8 x 8, column view) b[0] = B[t][g]   b[1] = B[t+4][g]
///   C (16 x 8)             c[0] = C[g][2t]  c[1] = C[g][2t+1]  c[2] = C[g+8][2t]  c[3] = C[g+8][2t+1]
/// No lane holds a whole row or column: the 32 lanes hold the tile together, and the instruction needs
/// all of them (hence "aligned": every lane of the warp executes it).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "pmpp/tf32.hpp"

namespace pmpp::ch05 {

/// @p x rounded to the nearest TF32 value (ties away from zero), as the bits the mma reads: the 13
/// mantissa bits TF32 drops are zero.
__device__ __forceinline__ std::uint32_t to_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return bits;
#else
  __trap();  // never launched below 8.0: see tensor_core_unavailable
  return 0;
#endif
}

//! [split]
/// @p x cut to TF32: the 13 mantissa bits TF32 does not keep cleared, which moves x toward zero by less
/// than one TF32 step (2^-10 of x). One integer instruction.
__device__ __forceinline__ std::uint32_t cut_to_tf32(float x) { return tf32_cut_bits(__float_as_uint(x)); }

/// x = big + small + rest: big is x cut to TF32, small is what big missed (x - big, exact in float:
/// those 13 bits), itself cut to TF32; |small| < 2^-10 |x| and |rest| < 2^-21 |x|. Cutting instead of
/// rounding to nearest costs a few bits, far below what a float sum of many products rounds away anyway
/// (tf32.cpp's bound), and replaces two conversions per value by two integer instructions.
struct Tf32Pair {
  std::uint32_t big, small;
};
__device__ __forceinline__ Tf32Pair split_tf32(float x) {
  const std::uint32_t big = cut_to_tf32(x);
  return {big, cut_to_tf32(x - __uint_as_float(big))};
}
//! [split]

/// c += a b for one 16 x 8 x 8 tile, on the warp's tensor cores: products of TF32 values (exact in
/// float), summed in float.
__device__ __forceinline__ void mma_tf32(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}

}  // namespace pmpp::ch05
