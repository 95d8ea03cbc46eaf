/// @file to_tf32.cuh
/// @brief A float made TF32 on the device, for the tensor-core stages: rounded (stage 06's A, as the
/// host rounds every B with tf32_round()) or cut (stage 08's A), through the bit operations of
/// pmpp/tf32.hpp, so that the CPU replays them exactly.
#pragma once

#include <cuda_runtime.h>

#include "pmpp/tf32.hpp"

namespace pmpp::ch07 {

//! [rounding]
/// x rounded to TF32 (10 mantissa bits, ties away from zero), as cvt.rna.tf32.f32 rounds it, in two
/// integer instructions (tf32_round_bits: add half of the dropped 2^13, clear the low 13 bits), where
/// cvt.rna.tf32.f32 compiles to four on Hopper (one of them a test for infinity and NaN). Infinities stay
/// infinities; a NaN whose payload lies in the low 13 bits alone would become one, but the stages take
/// finite inputs.
__device__ __forceinline__ float to_tf32(float x) { return __uint_as_float(tf32_round_bits(__float_as_uint(x))); }
//! [rounding]

//! [cut]
/// x cut to TF32, toward zero: the 13 bits TF32 does not keep cleared, one integer instruction. Stage 08
/// splits a pixel v into big = cut_to_tf32(v) and small = v - big (exact in float: the cleared bits)
/// and hands small to the tensor cores as it is: they read a TF32 operand's top 19 bits only, which cuts
/// it too. Two instructions a pixel where rounding both parts takes five; |v - big - cut(small)| <
/// 2^-21 |v|, as with chapter 5's cut split.
__device__ __forceinline__ float cut_to_tf32(float x) { return __uint_as_float(tf32_cut_bits(__float_as_uint(x))); }
//! [cut]

}  // namespace pmpp::ch07
