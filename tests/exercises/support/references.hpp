/// @file references.hpp
/// @brief The CPU references the exercise tests check against (tested themselves in
/// tests/exercises/test_references.cpp). They live with the tests, not with the exercises, so a
/// student cannot grade against a reference they changed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "pmpp/check.hpp"
#include "pmpp/parallel.hpp"

namespace ex_test {

// ---- Convolution --------------------------------------------------------------------------------

/// Extents of an array of up to three dimensions, x fastest: element (x, y, z) is at
/// `(z * ny + y) * nx + x`.
struct Extents {
  int nx = 1, ny = 1, nz = 1;
  std::size_t count() const { return static_cast<std::size_t>(nx) * ny * nz; }
};

/// Convolution with a `(2rx+1) x (2ry+1) x (2rz+1)` filter stored the same way (x fastest), not
/// flipped, ghost cells zero, accumulated in double:
/// `out(x, y, z) = sum_{i,j,k} f[(k * dy + j) * dx + i] * in(x - rx + i, y - ry + j, z - rz + k)`.
/// One dimension is `ry = rz = 0` (ny = nz = 1); two are `rz = 0` (nz = 1), where the filter is the
/// text's row-major `F[row][col]`.
inline std::vector<double> convolution_reference(const std::vector<float>& in, Extents e, const std::vector<float>& f,
                                                 int rx, int ry = 0, int rz = 0) {
  const int dx = 2 * rx + 1, dy = 2 * ry + 1, dz = 2 * rz + 1;
  std::vector<double> out(e.count());
  // One (y, z) row of outputs per work item.
  pmpp::parallel_for(static_cast<std::int64_t>(e.ny) * e.nz, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t yz = begin; yz < end; ++yz) {
      const int y = static_cast<int>(yz % e.ny), z = static_cast<int>(yz / e.ny);
      for (int x = 0; x < e.nx; ++x) {
        double sum = 0;
        for (int k = 0; k < dz; ++k) {
          const int iz = z - rz + k;
          if (iz < 0 || iz >= e.nz) continue;
          for (int j = 0; j < dy; ++j) {
            const int iy = y - ry + j;
            if (iy < 0 || iy >= e.ny) continue;
            for (int i = 0; i < dx; ++i) {
              const int ix = x - rx + i;
              if (ix < 0 || ix >= e.nx) continue;
              sum += static_cast<double>(f[(static_cast<std::size_t>(k) * dy + j) * dx + i]) *
                     in[(static_cast<std::size_t>(iz) * e.ny + iy) * e.nx + ix];
            }
          }
        }
        out[(static_cast<std::size_t>(z) * e.ny + y) * e.nx + x] = sum;
      }
    }
  });
  return out;
}

/// How far a float convolution may be from the exact one: each output adds `taps` products, and each
/// addition (and product) rounds by at most 2^-24 of a partial sum no larger than
/// `sum|f| * max|in|`. Small integers need no bound: their sums are exact.
inline pmpp::Tolerance convolution_tolerance(const std::vector<float>& f, float max_abs_in) {
  double sum_abs = 0;
  for (float v : f) sum_abs += std::fabs(v);
  return {(static_cast<double>(f.size()) + 1) * std::ldexp(1.0, -24) * sum_abs * max_abs_in, 0};
}

/// `taps` distinct values 1, 2, 3, ...: a filter whose every tap can be told apart, so a one-hot input
/// shows exactly where each tap landed.
inline std::vector<float> counting_filter(std::size_t taps) {
  std::vector<float> f(taps);
  for (std::size_t i = 0; i < taps; ++i) f[i] = static_cast<float>(i + 1);
  return f;
}

// ---- Reduction ----------------------------------------------------------------------------------

/// The exact sum of floats (double holds every sum the tests make exactly, or nearly so).
inline double sum_reference(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += v;
  return s;
}

/// The largest element; minus infinity, the identity of max, for an empty input.
inline float max_reference(const std::vector<float>& x) {
  float m = -std::numeric_limits<float>::infinity();
  for (float v : x) m = std::max(m, v);
  return m;
}

/// One block of the fixed-order sum specified in exercises/ch10/two_pass_sum.hpp, in float: block b of
/// a grid of G blocks of B threads over x[0 .. n).
inline float two_pass_block(const float* x, std::size_t n, std::size_t b, std::size_t G, std::size_t B) {
  std::vector<float> value(B);
  for (std::size_t t = 0; t < B; ++t) {
    float acc = 0.0f;
    for (std::size_t s = 2 * B * b + t; s < n; s += 2 * B * G) {
      acc += x[s];
      if (s + B < n) acc += x[s + B];
    }
    value[t] = acc;
  }
  for (std::size_t stride = B / 2; stride >= 1; stride /= 2)
    for (std::size_t t = 0; t < stride; ++t) value[t] += value[t + stride];
  return value[0];
}

/// The whole two-pass sum in the same order, so a correct kernel matches it bit for bit.
inline float two_pass_model(const std::vector<float>& x, std::size_t B, std::size_t max_blocks) {
  const std::size_t n = x.size();
  if (n == 0) return 0.0f;
  const std::size_t G = std::min((n + 2 * B - 1) / (2 * B), max_blocks);
  std::vector<float> partial(G);
  for (std::size_t b = 0; b < G; ++b) partial[b] = two_pass_block(x.data(), n, b, G, B);
  return two_pass_block(partial.data(), G, 0, 1, B);
}

/// A first-order bound on the rounding error of a float sum whose every input passes through at most
/// @p depth additions: `depth * 2^-24 * sum|x|`.
inline double sum_error_bound(const std::vector<float>& x, double depth) {
  double sum_abs = 0;
  for (float v : x) sum_abs += std::fabs(v);
  return depth * std::ldexp(1.0, -24) * sum_abs;
}

}  // namespace ex_test
