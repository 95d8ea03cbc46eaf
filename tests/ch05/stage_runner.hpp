// Runs one chapter-5 launcher on host data the way a careful test should: C poisoned with NaN and
// surrounded by guard bands, A and B copied back to prove they were left unchanged.
#pragma once

#include <cuda_runtime_api.h>

#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

namespace ch05_test {

inline constexpr std::size_t kGuard = 64;  // floats of poison before and after C (256 bytes: alignment kept)

using Launch = std::function<pmpp::ch05::LaunchConfig(const pmpp::ch05::MatmulArgs&)>;

/// A stage at one TILE_WIDTH, as the tests run it.
struct Variant {
  std::string name;
  Launch launch;
  int tile;
  const pmpp::ch05::Stage* stage;
  /// Why this GPU cannot run it ("" when it can), as the stage's row says: such a variant is skipped,
  /// with the reason in a warning, never counted as passed.
  std::string unavailable() const { return stage->unavailable ? stage->unavailable() : std::string(); }
  /// The checker's tolerance for its arithmetic.
  const pmpp::ch05::ErrorBound& bound() const { return *stage->error_bound; }
};

/// Every stage at every TILE_WIDTH it is compiled for, and stage 05 also with the K slices of 16 it
/// takes on GPUs with less shared memory (on this GPU it may take 32).
inline std::vector<Variant> every_variant() {
  std::vector<Variant> out;
  for (const auto& s : pmpp::ch05::stages()) {
    if (s.tiles.empty()) out.push_back({s.id, s.launch, 0, &s});
    for (int tile : s.tiles)
      out.push_back({std::string(s.id) + " TILE_WIDTH " + std::to_string(tile), s.launch, tile, &s});
  }
  out.push_back({"05_async_copy K slices of 16",
                 [](const pmpp::ch05::MatmulArgs& a) { return pmpp::ch05::matmul_async_copy_slices(a, 16); }, 0,
                 pmpp::ch05::find_stage("05_async_copy")});
  return out;
}

/// The variants this GPU can run; each one it cannot is reported as a warning with its reason.
inline std::vector<Variant> runnable_variants() {
  std::vector<Variant> out;
  for (auto& v : every_variant()) {
    const std::string why = v.unavailable();
    if (why.empty()) out.push_back(std::move(v));
    else WARN(v.name << " skipped: " << why);
  }
  return out;
}

/// Copy @p host into @p buffer starting @p offset floats in.
inline void upload_at(pmpp::DeviceBuffer<float>& buffer, const std::vector<float>& host, std::size_t offset) {
  CUDA_CHECK(cudaMemcpy(buffer.data() + offset, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
}

/// C = A B through @p launch. @p offset floats shift A, B and C inside their buffers: 1 makes all three
/// misaligned for float4 access.
inline std::vector<float> run(const Launch& launch, const std::vector<float>& A, const std::vector<float>& B, int M,
                              int N, int K, int tile = 0, std::size_t offset = 0) {
  const std::size_t c_size = static_cast<std::size_t>(M) * N;
  pmpp::DeviceBuffer<float> d_A(A.size() + offset), d_B(B.size() + offset), d_C(c_size + offset + 2 * kGuard);
  upload_at(d_A, A, offset);
  upload_at(d_B, B, offset);
  d_C.poison();
  launch({d_A.data() + offset, d_B.data() + offset, d_C.data() + kGuard + offset, M, N, K, tile});
  CUDA_CHECK(cudaDeviceSynchronize());

  const auto all = d_C.to_host();
  std::size_t guards_written = 0;
  for (std::size_t i = 0; i < kGuard + offset; ++i) guards_written += !std::isnan(all[i]);
  for (std::size_t i = kGuard + offset + c_size; i < all.size(); ++i) guards_written += !std::isnan(all[i]);
  CHECK(guards_written == 0);
  const auto A_after = d_A.to_host(), B_after = d_B.to_host();
  CHECK(std::vector<float>(A_after.begin() + offset, A_after.end()) == A);
  CHECK(std::vector<float>(B_after.begin() + offset, B_after.end()) == B);
  return {all.begin() + kGuard + offset, all.begin() + kGuard + offset + c_size};
}

}  // namespace ch05_test
