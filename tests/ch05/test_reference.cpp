// The CPU checker is the judge of every stage, so it is checked first: by hand-worked products, by
// agreement between its two paths, and by the errors it must and must not forgive.
#include <catch2/catch_test_macros.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/random.hpp"

using namespace pmpp::ch05;

TEST_CASE("reference reproduces a product worked by hand", "[reference]") {
  // [1 2 3; 4 5 6] (2 x 3) times [7 8; 9 10; 11 12] (3 x 2).
  const std::vector<float> A{1, 2, 3, 4, 5, 6}, B{7, 8, 9, 10, 11, 12};
  const Reference r = matmul_reference(A, B, 2, 2, 3);
  CHECK(r.index == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(r.value == std::vector<double>{58, 64, 139, 154});
  CHECK(r.magnitude == std::vector<double>{58, 64, 139, 154});  // no negative terms
}

TEST_CASE("reference keeps the magnitude of cancelling terms", "[reference]") {
  // [1 -2] (1 x 2) times [3; 4]: 3 - 8 = -5, while the rounding a float sum can make scales with 3 + 8.
  const Reference r = matmul_reference({1, -2}, {3, 4}, 1, 1, 2);
  CHECK(r.value == std::vector<double>{-5});
  CHECK(r.magnitude == std::vector<double>{11});
}

TEST_CASE("reference does not mix up rows and columns of non-square operands", "[reference]") {
  // A (1 x 3) = [1 2 3], B (3 x 2) = [1 0; 0 1; 1 1]: C = [4 5].
  const Reference r = matmul_reference({1, 2, 3}, {1, 0, 0, 1, 1, 1}, 1, 2, 3);
  CHECK(r.value == std::vector<double>{4, 5});
}

TEST_CASE("the listed-entries path agrees with the whole-matrix path", "[reference]") {
  const int M = 37, N = 23, K = 19;
  const auto A = pmpp::random_floats(static_cast<std::size_t>(M) * K, 1);
  const auto B = pmpp::random_floats(static_cast<std::size_t>(K) * N, 2);
  const Reference all = matmul_reference(A, B, M, N, K);
  const auto entries = sample_entries(M, N, 50, 3);
  const Reference some = matmul_reference(A, B, M, N, K, entries);
  REQUIRE(some.index == entries);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    CHECK(some.value[e] == all.value[entries[e]]);  // same terms in the same order: identical doubles
    CHECK(some.magnitude[e] == all.magnitude[entries[e]]);
  }
  CHECK_THROWS_AS(matmul_reference(A, B, M, N, K, {5, 3}), std::invalid_argument);
  CHECK_THROWS_AS(matmul_reference(A, B, M, N, K, {std::int64_t{M} * N}), std::invalid_argument);
  CHECK_THROWS_AS(matmul_reference(A, B, M, N + 1, K), std::invalid_argument);
}

TEST_CASE("the sample holds whole rows and columns plus random entries, ascending and distinct", "[reference]") {
  const int M = 100, N = 80;
  const auto e = sample_entries(M, N, 500, 9);
  CHECK(std::is_sorted(e.begin(), e.end()));
  CHECK(std::adjacent_find(e.begin(), e.end()) == e.end());
  auto has = [&](std::int64_t row, std::int64_t col) { return std::binary_search(e.begin(), e.end(), row * N + col); };
  for (int col = 0; col < N; ++col) CHECK((has(0, col) && has(M / 2, col) && has(M - 1, col)));
  for (int row = 0; row < M; ++row) CHECK((has(row, 0) && has(row, N / 2) && has(row, N - 1)));
  const std::size_t lines = 3 * N + 3 * M - 9;  // three rows and three columns, crossing at 9 entries
  CHECK(e.size() > lines + 400);                // most of the 500 random entries are new
  CHECK(e.size() <= lines + 500);
  CHECK(sample_entries(1, 1, 10, 1) == std::vector<std::int64_t>{0});
  CHECK(sample_entries(M, N, 500, 9) == e);  // reproducible
}

TEST_CASE("float error bound: gamma(K+1) times the magnitude", "[reference]") {
  CHECK(float_error_bound(1000, 0.0) == 0.0);
  const double u = FLOAT_UNIT_ROUNDOFF;
  CHECK(float_error_bound(1, 1.0) > 2 * u);
  CHECK(float_error_bound(4096, 1.0) > 4097 * u);
  CHECK(float_error_bound(4096, 1.0) < 4099 * u);  // (K+1)u (1 + (K+1)u + ...): K u^2 is about u here
  CHECK(float_error_bound(8192, 3.0) > float_error_bound(4096, 3.0));
}

TEST_CASE("the bound holds for a float sum in the worst order we can easily make", "[reference]") {
  // Sequential float accumulation of K products of one sign (no cancellation to hide behind), K = 4096.
  const int K = 4096;
  const auto a = pmpp::random_floats(K, 5, 0.5f, 1.0f), b = pmpp::random_floats(K, 6, 0.5f, 1.0f);
  float sum = 0;
  double exact = 0, magnitude = 0;
  for (int k = 0; k < K; ++k) {
    sum += a[k] * b[k];
    exact += static_cast<double>(a[k]) * b[k];
    magnitude += std::fabs(static_cast<double>(a[k]) * b[k]);
  }
  CHECK(std::fabs(sum - exact) <= float_error_bound(K, magnitude));
  CHECK(std::fabs(sum - exact) > 0);  // the test would prove nothing if the float sum were exact
}

TEST_CASE("check_against: exact, bounded, NaN and a missing term", "[reference]") {
  const int M = 3, N = 4, K = 64;
  const auto A = pmpp::random_floats(static_cast<std::size_t>(M) * K, 11);
  const auto B = pmpp::random_floats(static_cast<std::size_t>(K) * N, 12);
  const Reference ref = matmul_reference(A, B, M, N, K);
  std::vector<float> C(ref.value.begin(), ref.value.end());
  CHECK(check_against(C, ref, K, false).ok());
  CHECK(check_against(C, ref, K, false).checked == 12);

  // One term of entry (1, 2) left out: far outside the bound at K = 64.
  std::vector<float> missing = C;
  missing[1 * N + 2] -= A[1 * K + 5] * B[5 * N + 2];
  const auto r = check_against(missing, ref, K, false);
  CHECK(r.mismatches == 1);
  REQUIRE(r.first_bad.size() == 1);
  CHECK(r.first_bad[0] == 1 * N + 2);  // reported as a flat index into C

  std::vector<float> nan = C;
  nan[7] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(check_against(nan, ref, K, false).ok());

  CHECK_FALSE(check_against(std::vector<float>(C.begin(), C.end() - 1), ref, K, false).ok());  // too short

  // Exact mode forgives nothing: one ulp off fails.
  const Reference ints = matmul_reference({1, 2, 3, 4}, {5, 6, 7, 8}, 2, 2, 2);  // [19 22; 43 50]
  std::vector<float> got{19, 22, 43, 50};
  CHECK(check_against(got, ints, 2, true).ok());
  got[3] = std::nextafter(50.0f, 51.0f);
  CHECK_FALSE(check_against(got, ints, 2, true).ok());
  CHECK(check_against(got, ints, 2, false).ok());  // within gamma(3) * 50 in bounded mode
}
