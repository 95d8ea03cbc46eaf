// TF32 on the CPU: the split of stage 07, and the error bounds the checker gives the tensor-core stages
// (the cut and the rounding cvt.rna.tf32.f32 does, stage 06's, are tf32_cut and tf32_round in
// pmpp/tf32.hpp).
#include "ch05_matmul/matmul.hpp"

namespace pmpp::ch05 {

Tf32Split tf32_split(float x) {
  const float big = tf32_cut(x);
  return {big, tf32_cut(x - big)};  // x - big is exact in float: it is the 13 bits the cut cleared
}

double tf32_error_bound(int K, double magnitude) {
  const double u = TF32_UNIT_ROUNDOFF;
  return (2 * u + u * u) * magnitude + float_error_bound(K, (1 + u) * (1 + u) * magnitude);
}

double tf32_cut_a_error_bound(int K, double magnitude) {
  const double u = TF32_UNIT_ROUNDOFF;
  const double product = (1 + 2 * u) * (1 + u);  // a cut, b rounded
  return (product - 1) * magnitude + float_error_bound(2 * K + 1, product * magnitude);
}

double split_tf32_error_bound(int K, double magnitude) {
  // The three products' magnitudes add up to at most (1 + 2^-9) |a b| (the small parts are below 2^-10
  // of the values); 2^-8 leaves a margin.
  return SPLIT_TF32_PRODUCT_ERROR * magnitude + float_error_bound(K, (1 + 1.0 / 256) * magnitude);
}

}  // namespace pmpp::ch05
