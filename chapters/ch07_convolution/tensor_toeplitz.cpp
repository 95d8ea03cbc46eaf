// Stages 06 and 08's host side (see convolution.hpp): the TF32 split and the filter's Toeplitz matrices in
// the order each stage's tensor-core instruction reads them, built once per filter, on the CPU, where tests
// can check them without a GPU.
#include <cstddef>
#include <stdexcept>
#include <string>

#include "ch07_convolution/convolution.hpp"

namespace pmpp::ch07 {

std::string tensor_radius_skip_reason(int radius) {
  if (radius >= TENSOR_MIN_RADIUS) return "";
  return "it is for r >= " + std::to_string(TENSOR_MIN_RADIUS) +
         "; below, the DRAM floor is above the FP32 floor and stage 05 is bound by DRAM";
}

void require_tensor_radius(const char* stage, int radius) {
  if (radius < TENSOR_MIN_RADIUS)
    throw std::invalid_argument(std::string(stage) + " takes radius " + std::to_string(TENSOR_MIN_RADIUS) + " to " +
                                std::to_string(MAX_FILTER_RADIUS) + ", not " + std::to_string(radius));
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

std::vector<float> packed_toeplitz_table(const std::vector<float>& filter, int radius) {
  const int ring = filter_dim(radius), blocks = packed_stored_blocks(radius);
  std::vector<float> table(static_cast<std::size_t>(packed_table_floats(radius)));
  for (int s = 0; s < tensor_k_steps(radius); ++s)
    for (int c = 0; c < 2; ++c)
      for (int q = 0; q < blocks; ++q)
        for (int n = 0; n < MMA_N; ++n)
          for (int e = 0; e < 4; ++e) {
            const int i = ring - 1 - q % ring, k = MMA_K * s + 4 * c + e;
            const Tf32Split v = split_tf32(toeplitz_entry(filter, radius, i, k, n));
            for (int part = 0; part < 2; ++part)
              table[((((s * 2 + part) * 2 + c) * blocks + q) * 32) + n * 4 + e] = part == 0 ? v.big : v.small;
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
