// =================================================================================================
// Stage 06: TF32 tensor cores (beyond the text)
//
// What it is:  stage 05's pipeline of cp.async slices (now 4 buffers) feeding warps that multiply with
//              mma.sync m16n8k8 instead of FFMA: each warp holds its 64 x 64 part of a 128 x 256 tile of
//              C as 8 x 4 x 4 fragment values per lane, and one instruction of the warp does 16 x 8 x 8
//              multiply-adds. The kernel is tensor_core_gemm.cuh's with PRODUCTS = 1.
// Changed:     operands are rounded to TF32 (10 mantissa bits) as they leave shared memory; shared rows
//              are padded, not swizzled, so that every fragment load meets 32 different banks.
// Limitation:  less accurate than FP32: each operand is rounded by up to 2^-11 of itself, so each product
//              by up to about 2^-10 (tf32_error_bound); the program prints the error measured against FP64
//              next to the FP32 stages'. Stage 07 recovers FP32 accuracy with three products.
// Preconditions: 1 <= M, N, K <= MAX_DIM, any sizes and alignments (16-byte copies where float4_operands,
//              else 4-byte copies); compute capability 8.0 and code compiled for it (tf32_unavailable says
//              otherwise, and the programs skip the stage). 4 buffers take 106 KB of shared memory; where a
//              block may have less (compute capability 8.6, 8.9: 99 KB) it runs with 2.
// =================================================================================================
#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/tensor_core_gemm.cuh"

namespace pmpp::ch05 {

std::string tf32_unavailable() { return tensor_core_unavailable<Tf32Tiling, 1>(); }

LaunchConfig matmul_tf32(const MatmulArgs& a) { return launch_tensor_core<Tf32Tiling, 1>(a, "matmul_tf32"); }

}  // namespace pmpp::ch05
