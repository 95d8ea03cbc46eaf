// Matrices of more than 2^31 elements (8.6 GB each): every index into A, B and C must be computed in
// 64 bits. Each case fills the large matrix with zeros except a few rows with small integers (among
// them the row that straddles element 2^31), so the expected result is exact and cheap to compute.
#include <cuda_runtime_api.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdint>
#include <vector>

#include "ch05_matmul/matmul.hpp"
#include "gpu_test.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/random.hpp"
#include "stage_runner.hpp"

using namespace pmpp::ch05;

/// SKIP unless the GPU has room for @p bytes plus some slack.
#define REQUIRE_FREE_DEVICE_MEMORY(bytes)                                                              \
  do {                                                                                                 \
    std::size_t free_ = 0, total_ = 0;                                                                 \
    CUDA_CHECK(cudaMemGetInfo(&free_, &total_));                                                       \
    if (free_ < (bytes) + (std::size_t{1} << 30))                                                      \
      SKIP("needs " << ((bytes) >> 30) + 1 << " GiB of free GPU memory, has " << (free_ >> 30) << " GiB"); \
  } while (0)

namespace {
constexpr std::int64_t kTwo31 = std::int64_t{1} << 31;

/// The device memory the runnable stages keep beside A, B and C for an M x N x K product: the largest
/// workspace among them (stage 08's split operands or stage 09's transposed B, where this GPU runs them).
std::size_t largest_workspace_bytes(int M, int N, int K) {
  const std::size_t split = wgmma_3xtf32_unavailable().empty() ? wgmma_3xtf32_workspace_bytes(M, N, K) : 0;
  const std::size_t transposed = tma_wgmma_tf32_unavailable().empty() ? tma_wgmma_tf32_workspace_bytes(M, N, K) : 0;
  return split > transposed ? split : transposed;
}

/// @p count rows of a device matrix with @p S columns, from row @p first, copied to the host.
std::vector<float> rows_of(const float* d, std::int64_t S, std::int64_t first, std::int64_t count) {
  std::vector<float> h(static_cast<std::size_t>(S * count));
  CUDA_CHECK(cudaMemcpy(h.data(), d + first * S, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

/// Four interesting rows of a matrix with @p rows rows of @p cols elements: the first, the one holding
/// element 2^31, the next, and the last.
std::vector<std::int64_t> probe_rows(std::int64_t rows, std::int64_t cols) {
  return {0, kTwo31 / cols, kTwo31 / cols + 1, rows - 1};
}
}  // namespace

TEST_CASE("A with more than 2^31 elements", "[gpu][large]") {
  PMPP_REQUIRE_GPU();
  const int M = 1048000, K = 2056, N = 8;  // A: 2.15e9 floats; N and K multiples of 4 (float4 path)
  REQUIRE(std::int64_t{M} * K > kTwo31);
  REQUIRE_FREE_DEVICE_MEMORY(sizeof(float) * std::size_t{M} * K + largest_workspace_bytes(M, N, K));

  pmpp::DeviceBuffer<float> d_A(std::size_t{M} * K), d_C(std::size_t{M} * N);
  CUDA_CHECK(cudaMemset(d_A.data(), 0, d_A.bytes()));
  const auto B = pmpp::random_small_ints(std::size_t{K} * N, 7);
  pmpp::DeviceBuffer<float> d_B(B);

  std::vector<float> want(std::size_t{M} * N, 0.0f);
  for (std::int64_t row : probe_rows(M, K)) {
    const auto a = pmpp::random_small_ints(K, 100 + row);
    CUDA_CHECK(cudaMemcpy(d_A.data() + row * K, a.data(), K * sizeof(float), cudaMemcpyHostToDevice));
    for (int col = 0; col < N; ++col) {
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += static_cast<double>(a[k]) * B[static_cast<std::size_t>(k) * N + col];
      want[row * N + col] = static_cast<float>(sum);
    }
  }
  for (const auto& v : ch05_test::runnable_variants()) {
    INFO(v.name);
    d_C.poison();
    v.launch({d_A.data(), d_B.data(), d_C.data(), M, N, K, v.tile});
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(d_C.to_host() == want);
  }
}

TEST_CASE("B with more than 2^31 elements", "[gpu][large]") {
  PMPP_REQUIRE_GPU();
  const int M = 3, K = 65600, N = 32800;  // B: 2.15e9 floats
  REQUIRE(std::int64_t{K} * N > kTwo31);
  REQUIRE_FREE_DEVICE_MEMORY(sizeof(float) * std::size_t{K} * N + largest_workspace_bytes(M, N, K));

  pmpp::DeviceBuffer<float> d_B(std::size_t{K} * N), d_C(std::size_t{M} * N);
  CUDA_CHECK(cudaMemset(d_B.data(), 0, d_B.bytes()));
  const auto A = pmpp::random_small_ints(std::size_t{M} * K, 8);
  pmpp::DeviceBuffer<float> d_A(A);

  std::vector<double> want(std::size_t{M} * N, 0.0);
  for (std::int64_t k : probe_rows(K, N)) {
    const auto b = pmpp::random_small_ints(N, 200 + k);
    CUDA_CHECK(cudaMemcpy(d_B.data() + k * N, b.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    for (int row = 0; row < M; ++row)
      for (int col = 0; col < N; ++col) want[static_cast<std::size_t>(row) * N + col] += double{A[row * std::size_t{K} + k]} * b[col];
  }
  const std::vector<float> want_f(want.begin(), want.end());
  for (const auto& v : ch05_test::runnable_variants()) {
    INFO(v.name);
    d_C.poison();
    v.launch({d_A.data(), d_B.data(), d_C.data(), M, N, K, v.tile});
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(d_C.to_host() == want_f);
  }
}

TEST_CASE("C with more than 2^31 elements", "[gpu][large]") {
  PMPP_REQUIRE_GPU();
  const int M = 46341, N = 46344, K = 4;  // C: 2.15e9 floats
  REQUIRE(std::int64_t{M} * N > kTwo31);
  REQUIRE_FREE_DEVICE_MEMORY(sizeof(float) * std::size_t{M} * N + largest_workspace_bytes(M, N, K));

  const auto A = pmpp::random_small_ints(std::size_t{M} * K, 9);
  const auto B = pmpp::random_small_ints(std::size_t{K} * N, 10);
  pmpp::DeviceBuffer<float> d_A(A), d_B(B), d_C(std::size_t{M} * N);
  for (const auto& v : ch05_test::runnable_variants()) {
    INFO(v.name);
    d_C.poison();
    v.launch({d_A.data(), d_B.data(), d_C.data(), M, N, K, v.tile});
    CUDA_CHECK(cudaDeviceSynchronize());
    for (std::int64_t row : probe_rows(M, N)) {
      INFO("row " << row);
      std::vector<float> want(N);
      for (int col = 0; col < N; ++col) {
        double sum = 0;
        for (int k = 0; k < K; ++k) sum += double{A[row * K + k]} * B[static_cast<std::size_t>(k) * N + col];
        want[col] = static_cast<float>(sum);
      }
      CHECK(rows_of(d_C.data(), N, row, 1) == want);
    }
  }
}
