// CPU checker for chapter 5: the definition of the product, accumulated in double, and a per-entry
// bound on the rounding a float kernel may add.
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/parallel.hpp"

namespace pmpp::ch05 {

namespace {
void require_shapes(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
  if (M < 1 || N < 1 || K < 1 || A.size() != static_cast<std::size_t>(M) * K ||
      B.size() != static_cast<std::size_t>(K) * N)
    throw std::invalid_argument("matmul_reference: A must hold M*K and B K*N floats, with M, N, K >= 1");
}
}  // namespace

Reference matmul_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
  require_shapes(A, B, M, N, K);
  const std::size_t entries = static_cast<std::size_t>(M) * N;
  Reference r;
  r.index.resize(entries);
  r.value.assign(entries, 0.0);
  r.magnitude.assign(entries, 0.0);
  parallel_for(M, [&](std::int64_t first_row, std::int64_t last_row) {
    for (std::int64_t row = first_row; row < last_row; ++row) {
      // Row by row, k outermost: the inner loop walks a row of B and a row of C contiguously.
      double* value = &r.value[row * N];
      double* magnitude = &r.magnitude[row * N];
      for (std::int64_t k = 0; k < K; ++k) {
        const double a = A[row * K + k];
        const float* Brow = &B[k * N];
        for (std::int64_t col = 0; col < N; ++col) {
          const double term = a * Brow[col];  // exact: a double holds the product of two floats
          value[col] += term;
          magnitude[col] += std::fabs(term);
        }
      }
      for (std::int64_t col = 0; col < N; ++col) r.index[row * N + col] = row * N + col;
    }
  });
  return r;
}

Reference matmul_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K,
                           const std::vector<std::int64_t>& entries) {
  require_shapes(A, B, M, N, K);
  const std::int64_t size = static_cast<std::int64_t>(M) * N;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i] < 0 || entries[i] >= size || (i > 0 && entries[i] <= entries[i - 1]))
      throw std::invalid_argument("matmul_reference: entries must be ascending flat indices into C");
  Reference r;
  r.index = entries;
  r.value.assign(entries.size(), 0.0);
  r.magnitude.assign(entries.size(), 0.0);
  parallel_for(static_cast<std::int64_t>(entries.size()), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t e = first; e < last; ++e) {
      const std::int64_t row = entries[e] / N, col = entries[e] % N;
      double value = 0, magnitude = 0;
      for (std::int64_t k = 0; k < K; ++k) {
        const double term = static_cast<double>(A[row * K + k]) * B[k * N + col];
        value += term;
        magnitude += std::fabs(term);
      }
      r.value[e] = value;
      r.magnitude[e] = magnitude;
    }
  });
  return r;
}

std::vector<std::int64_t> sample_entries(int M, int N, int random_count, std::uint64_t seed) {
  std::vector<std::int64_t> e;
  for (std::int64_t row : {0, M / 2, M - 1})
    for (std::int64_t col = 0; col < N; ++col) e.push_back(row * N + col);
  for (std::int64_t col : {0, N / 2, N - 1})
    for (std::int64_t row = 0; row < M; ++row) e.push_back(row * N + col);
  std::mt19937_64 engine(seed);
  const std::uint64_t size = static_cast<std::uint64_t>(M) * N;
  for (int i = 0; i < random_count; ++i) e.push_back(static_cast<std::int64_t>(engine() % size));
  std::sort(e.begin(), e.end());
  e.erase(std::unique(e.begin(), e.end()), e.end());
  return e;
}

double float_error_bound(int K, double magnitude) {
  // K products summed in float: at most K roundings of the products and K - 1 of the sums (fewer
  // with FMA). One more step covers the reference's own double rounding, which is ~2^-29 smaller.
  const double n_u = (static_cast<double>(K) + 1) * FLOAT_UNIT_ROUNDOFF;
  return n_u / (1 - n_u) * magnitude;
}

CheckResult check_against(const std::vector<float>& C, const Reference& ref, int K, bool exact,
                          double (*bound)(int K, double magnitude)) {
  CheckResult r;
  r.checked = ref.index.size();
  for (std::size_t e = 0; e < ref.index.size(); ++e) {
    const std::int64_t i = ref.index[e];
    if (i < 0 || static_cast<std::size_t>(i) >= C.size()) {  // a result too short cannot pass
      ++r.mismatches;
      continue;
    }
    const double got = C[i], want = ref.value[e];
    const Tolerance tol = exact ? Tolerance::exact() : Tolerance{bound(K, ref.magnitude[e]), 0};
    const double err = std::isnan(got) ? NAN : std::fabs(got - want);
    if (std::isnan(err) ? !std::isnan(r.worst_error) : err > r.worst_error) {
      r.worst_error = err;
      r.worst_index = static_cast<std::size_t>(i);
    }
    if (!within(got, want, tol)) {
      if (r.first_bad.size() < 8) {
        r.first_bad.push_back(static_cast<std::size_t>(i));
        r.first_got.push_back(got);
        r.first_want.push_back(want);
      }
      ++r.mismatches;
    }
  }
  return r;
}

}  // namespace pmpp::ch05
