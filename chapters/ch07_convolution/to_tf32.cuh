/// @file to_tf32.cuh
/// @brief The device's rounding of a float to TF32, for the tensor-core stages 06 and 08 (their host
/// side rounds with tf32_round(), pmpp/tf32.hpp, through the same bits, to the same result).
#pragma once

#include <cuda_runtime.h>

#include "pmpp/tf32.hpp"

namespace pmpp::ch07 {

//! [rounding]
/// x rounded to TF32 (10 mantissa bits, ties away from zero), as cvt.rna.tf32.f32 rounds it, in two
/// integer instructions (tf32_round_bits: add half of the dropped 2^13, clear the low 13 bits), where
/// cvt.rna.tf32.f32 compiles to four on Hopper (one of them a test for infinity and NaN). Stage 08 rounds
/// up to 24 values a thread per row. Infinities stay infinities; a NaN whose payload lies in the low 13
/// bits alone would become one, but the stages take finite inputs.
__device__ __forceinline__ float to_tf32(float x) { return __uint_as_float(tf32_round_bits(__float_as_uint(x))); }
//! [rounding]

}  // namespace pmpp::ch07
