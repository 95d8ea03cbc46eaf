// The host side of the matrix sums: how many passes, of which shapes (the source's example included).
#include <catch2/catch_test_macros.hpp>
#include <vector>

#include "ch10_reduction/matrix_sum/matrix_sum.hpp"

using namespace pmpp::ch10;

namespace {
std::vector<std::size_t> sides(MatrixShape in, unsigned patch) {
  std::vector<std::size_t> rows;
  for (const MatrixShape& s : pass_shapes(in, patch)) rows.push_back(s.rows);
  return rows;
}
}  // namespace

TEST_CASE("the source's 4096 x 4096 matrix with 8 x 8 groups: 4096 -> 512 -> 64 -> 8 -> 1", "[matrix]") {
  CHECK(sides({4096, 4096}, 8) == std::vector<std::size_t>{4096, 512, 64, 8, 1});
}

TEST_CASE("16 x 16 patches", "[matrix]") {
  CHECK(sides({4096, 4096}, 16) == std::vector<std::size_t>{4096, 256, 16, 1});
  CHECK(sides({8192, 8192}, 16) == std::vector<std::size_t>{8192, 512, 32, 2, 1});
  const auto ragged = pass_shapes({17, 1000});
  REQUIRE(ragged.size() == 4);
  CHECK(ragged[1] == MatrixShape{2, 63});
  CHECK(ragged[2] == MatrixShape{1, 4});
  CHECK(ragged[3] == MatrixShape{1, 1});
  CHECK(pass_shapes({1, 1}).size() == 1);  // nothing to do: the element is the sum
}

TEST_CASE("the matrix reference sums every element", "[matrix]") {
  CHECK(matrix_sum_reference({1, -2, 3.5f, 4}) == 6.5);
  CHECK(matrix_sum_reference({}) == 0);
}

TEST_CASE("each strategy's pass plan: three host-driven, one in a single launch", "[matrix]") {
  const auto& all = matrix_strategies();
  REQUIRE(all.size() == 4);
  for (std::size_t i = 0; i < 3; ++i) CHECK(pass_shapes({8192, 8192}, all[i]) == pass_shapes({8192, 8192}));
  CHECK(pass_shapes({8191, 12289}, all[3]) == std::vector<MatrixShape>{{8191, 12289}, {1, 1}});
  CHECK(pass_shapes({1, 1}, all[3]).size() == 1);
}

TEST_CASE("a pass's limiter, read from its time", "[matrix]") {
  // 256 MiB read in 0.0855 ms at a 3352 GB/s peak: 94% of peak.
  PassEvidence e{0.0855, 268435456.0, 270336, 270336, 0.003, 3352};
  CHECK(pass_limiter(e) == "DRAM bandwidth (94% of peak)");
  e = PassEvidence{0.004, 1048576.0, 65536, 270336, 0.003, 3352};  // shorter than two empty kernels
  CHECK(pass_limiter(e) == "launch latency");
  e = PassEvidence{0.0227, 1048576.0, 1024, 270336, 0.003, 3352};  // 1024 threads of 270336
  CHECK(pass_limiter(e) == "too few threads (1024 of 270336)");
  e = PassEvidence{0.2831, 268435456.0, 262144, 270336, 0.003, 3352};  // a full GPU at 28% of peak
  CHECK(pass_limiter(e) == "access pattern, issue (DRAM 28%)");
}
