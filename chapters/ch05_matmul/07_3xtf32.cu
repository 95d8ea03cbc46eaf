// =================================================================================================
// Stage 07: three TF32 products per FP32 product, "3xTF32" (beyond the text)
//
// What it is:  stage 06's kernel with PRODUCTS = 3: each operand x leaves shared memory split into
//              big = x cut to TF32 and small = x - big cut to TF32 (cut: the 13 low mantissa bits
//              cleared, one integer instruction), and each tile gets a_big b_small + a_small b_big +
//              a_big b_big (the small products first) on the tensor cores. a_small b_small is left out: it
//              is below 2^-20 of the product, under what float's rounding of a long sum loses.
// Changed:     three mmas per tile instead of one; the split parts take registers, so 4 warps of 64 x 64
//              in 128 x 128 block tiles, two blocks per SM where they fit (Split3Tiling); each k-step's
//              three products go into a zeroed partial sum that one float add moves into the
//              accumulator, because the tensor core's own sums round toward zero and that bias would
//              grow with K.
// Limitation:  three times the tensor work of stage 06 for FP32 accuracy; still several times the FP32
//              units' rate (the program prints both floors).
// Preconditions: as stage 06. 4 buffers of K slices of 16 take 74 KB of shared memory, which every GPU
//              of compute capability 8.0 or later gives a block.
// =================================================================================================
#include "ch05_matmul/matmul.hpp"
#include "ch05_matmul/tensor_core_gemm.cuh"

namespace pmpp::ch05 {

std::string split_tf32_unavailable() { return tensor_core_unavailable<Split3Tiling, 3>(); }

LaunchConfig matmul_3xtf32(const MatmulArgs& a) { return launch_tensor_core<Split3Tiling, 3>(a, "matmul_3xtf32"); }

}  // namespace pmpp::ch05
