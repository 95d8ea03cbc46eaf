// The baseline is checked like a stage: a wrong operand order or a TF32 shortcut would make every
// "% of cuBLAS" in the programs meaningless.
#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <vector>

#include "ch05_matmul/matmul.hpp"
#include "gpu_test.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/random.hpp"
#include "stage_runner.hpp"

using namespace pmpp::ch05;

TEST_CASE("cuBLAS baseline computes the row-major product, non-square included", "[gpu][cublas]") {
  PMPP_REQUIRE_GPU();
  if (!cublas_available()) SKIP(cublas_missing());
  const CublasSgemm cublas;
  const ch05_test::Launch launch = [&](const MatmulArgs& a) { return cublas.launch(a); };
  const int shapes[][3] = {{1, 1, 1}, {33, 65, 17}, {65, 17, 33}, {128, 96, 200}, {1, 300, 7}};
  for (const auto& s : shapes) {
    const int M = s[0], N = s[1], K = s[2];
    INFO(M << "x" << N << "x" << K);
    const auto A = pmpp::random_small_ints(static_cast<std::size_t>(M) * K, 41);
    const auto B = pmpp::random_small_ints(static_cast<std::size_t>(K) * N, 42);
    const auto exact = check_against(ch05_test::run(launch, A, B, M, N, K), matmul_reference(A, B, M, N, K), K, true);
    INFO(exact.summary());
    CHECK(exact.ok());
    const auto Af = pmpp::random_floats(static_cast<std::size_t>(M) * K, 43);
    const auto Bf = pmpp::random_floats(static_cast<std::size_t>(K) * N, 44);
    const auto bound = check_against(ch05_test::run(launch, Af, Bf, M, N, K), matmul_reference(Af, Bf, M, N, K), K, false);
    INFO(bound.summary());
    CHECK(bound.ok());
  }
}

TEST_CASE("cuBLAS baseline does not round its inputs to TF32", "[gpu][cublas]") {
  PMPP_REQUIRE_GPU();
  if (!cublas_available()) SKIP(cublas_missing());
  // A's first column holds 1 + j 2^-20 (j = 1..7), its other columns 0; B is all ones. Every C[i][j] is
  // exactly A[i][0] in fp32. TF32 keeps 10 mantissa bits and would return 1.
  const int M = 256, N = 256, K = 256;
  std::vector<float> A(static_cast<std::size_t>(M) * K, 0.0f), B(static_cast<std::size_t>(K) * N, 1.0f);
  for (int i = 0; i < M; ++i) A[static_cast<std::size_t>(i) * K] = 1.0f + std::ldexp(1.0f, -20) * (1 + i % 7);
  const CublasSgemm cublas;
  const auto C = ch05_test::run([&](const MatmulArgs& a) { return cublas.launch(a); }, A, B, M, N, K);
  std::size_t wrong = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) wrong += C[static_cast<std::size_t>(i) * N + j] != A[static_cast<std::size_t>(i) * K];
  CHECK(wrong == 0);
}

TEST_CASE("cuBLAS with TF32 allowed: the row-major product, within the TF32 bound", "[gpu][cublas]") {
  PMPP_REQUIRE_GPU();
  if (!cublas_available()) SKIP(cublas_missing());
  if (pmpp::query_device().major < 8) SKIP("TF32 needs compute capability 8.0");
  const CublasSgemm cublas(true);
  const ch05_test::Launch launch = [&](const MatmulArgs& a) { return cublas.launch(a); };
  const int M = 65, N = 130, K = 257;
  const auto A = pmpp::random_small_ints(static_cast<std::size_t>(M) * K, 51);  // TF32 holds them exactly
  const auto B = pmpp::random_small_ints(static_cast<std::size_t>(K) * N, 52);
  CHECK(check_against(ch05_test::run(launch, A, B, M, N, K), matmul_reference(A, B, M, N, K), K, true).ok());
  const auto Af = pmpp::random_floats(static_cast<std::size_t>(M) * K, 53);
  const auto Bf = pmpp::random_floats(static_cast<std::size_t>(K) * N, 54);
  const auto result =
      check_against(ch05_test::run(launch, Af, Bf, M, N, K), matmul_reference(Af, Bf, M, N, K), K, false, tf32_error_bound);
  INFO(result.summary());
  CHECK(result.ok());
}
