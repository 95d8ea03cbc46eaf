// CPU reference for chapter 7: the definition, nothing clever, accumulated in double.
#include <cmath>
#include <cstdint>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/parallel.hpp"

namespace pmpp::ch07 {

std::vector<float> convolution_2D_reference(const std::vector<float>& in, const std::vector<float>& filter, int width,
                                            int height, int radius) {
  const int dim = filter_dim(radius);
  std::vector<float> out(static_cast<std::size_t>(width) * height);
  parallel_for(height, [&](std::int64_t first_row, std::int64_t last_row) {
    for (std::int64_t row = first_row; row < last_row; ++row) {
      for (std::int64_t col = 0; col < width; ++col) {
        double sum = 0;
        for (int i = 0; i < dim; ++i) {
          const std::int64_t in_row = row - radius + i;
          if (in_row < 0 || in_row >= height) continue;  // ghost cells are zero
          for (int j = 0; j < dim; ++j) {
            const std::int64_t in_col = col - radius + j;
            if (in_col < 0 || in_col >= width) continue;
            sum += static_cast<double>(filter[i * dim + j]) * in[in_row * width + in_col];
          }
        }
        out[row * width + col] = static_cast<float>(sum);
      }
    }
  });
  return out;
}

//! [reference_1d]
std::vector<double> convolution_1D_reference(const std::vector<double>& x, const std::vector<double>& f) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  const std::int64_t r = static_cast<std::int64_t>(f.size() / 2);
  std::vector<double> y(x.size(), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(f.size()); ++j) {
      const std::int64_t k = i - r + j;
      if (k >= 0 && k < n) y[i] += f[j] * x[k];
    }
  return y;
}
//! [reference_1d]

double float_error_bound(const std::vector<float>& filter, float max_abs_in) {
  double sum_abs = 0;
  for (float f : filter) sum_abs += std::fabs(f);
  // Each output is a sum of filter.size() float products: a sequential float sum of k terms errs by at
  // most about k * 2^-24 times the sum of the terms' magnitudes (plus one rounding per product).
  return (static_cast<double>(filter.size()) + 1) * std::ldexp(1.0, -24) * sum_abs * max_abs_in;
}

}  // namespace pmpp::ch07
