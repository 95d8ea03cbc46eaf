// Stage 06's host side (see convolution.hpp): the TF32 split and the filter's Toeplitz matrices in the
// order the mma instruction's B fragments hold them, built once per filter, on the CPU, where tests
// can check them without a GPU.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ch07_convolution/convolution.hpp"

namespace pmpp::ch07 {

float tf32_round(float x) {
  if (!std::isfinite(x)) return x;
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  // The sign is a bit of its own, so adding half of the dropped 2^13 to the magnitude and clearing the
  // low 13 bits rounds to nearest with ties away from zero; a carry into the exponent is the right answer.
  bits = (bits + 0x1000u) & 0xFFFFE000u;
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

Tf32Split split_tf32(float x) {
  const float big = tf32_round(x);
  return {big, tf32_round(x - big)};  // x - big is exact in float: big is x's nearest neighbour
}

float toeplitz_entry(const std::vector<float>& filter, int radius, int i, int k, int n) {
  const int j = k - n;  // the tap output column n takes from input column k of its window
  return j >= 0 && j <= 2 * radius ? filter[static_cast<std::size_t>(i) * filter_dim(radius) + j] : 0.0f;
}

std::vector<float> toeplitz_fragments(const std::vector<float>& filter, int radius) {
  const int steps = tensor_k_steps(radius);
  std::vector<float> table;
  table.reserve(static_cast<std::size_t>(filter_dim(radius)) * steps * 32 * 4);
  for (int i = 0; i < filter_dim(radius); ++i)
    for (int s = 0; s < steps; ++s)
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;  // the B fragment of m16n8k8: b0 = B[t][g], b1 = B[t + 4][g]
        const Tf32Split b0 = split_tf32(toeplitz_entry(filter, radius, i, MMA_K * s + t, g));
        const Tf32Split b1 = split_tf32(toeplitz_entry(filter, radius, i, MMA_K * s + t + 4, g));
        table.insert(table.end(), {b0.big, b1.big, b0.small, b1.small});
      }
  return table;
}

double tensor_core_flops(int width, int height, int radius) {
  const double blocks = static_cast<double>(width) * height / (MMA_M * MMA_N);
  const double mma_per_block = static_cast<double>(filter_dim(radius)) * tensor_k_steps(radius) * TF32_PRODUCTS;
  return blocks * mma_per_block * 2.0 * MMA_M * MMA_N * MMA_K;
}

double tensor_core_useful_share(int radius) {
  return static_cast<double>(filter_dim(radius)) / (MMA_K * tensor_k_steps(radius)) / TF32_PRODUCTS;
}

}  // namespace pmpp::ch07
