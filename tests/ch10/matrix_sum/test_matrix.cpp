// Every matrix-sum strategy against the CPU reference over awkward shapes: single rows and columns,
// patch +- 1, primes, non-square, more patches than threads; bit-exact on small integers, bounded on
// random floats; run twice (outer_columns reuses its block counter).
#include <catch2/catch_test_macros.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "ch10_reduction/matrix_sum/matrix_sum.hpp"
#include "ch10_reduction/reduction.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "pmpp/device_buffer.hpp"

using namespace pmpp::ch10;

namespace {
float run_strategy(const MatrixStrategy& s, const std::vector<float>& m, MatrixShape shape) {
  const pmpp::DeviceBuffer<float> d(m);
  MatrixPasses passes(s, shape);
  const float* result = passes.run(d.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  float got = 0;
  CUDA_CHECK(cudaMemcpy(&got, result, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(d.to_host() == m);  // the passes never write the input
  return got;
}
}  // namespace

TEST_CASE("every strategy is bit-exact on small integers, awkward shapes", "[gpu][matrix]") {
  PMPP_REQUIRE_GPU();
  const std::vector<MatrixShape> shapes{{1, 1},   {1, 17},   {17, 1},    {15, 15},   {16, 16},   {17, 17},
                                        {31, 33}, {255, 257}, {1000, 3}, {3, 1000}, {4096, 4097}, {8191, 1},
                                        {1, 8191}, {4099, 1031}};
  for (const MatrixStrategy& s : matrix_strategies())
    for (const MatrixShape& shape : shapes) {
      const auto m = make_inputs(shape.size(), Op::sum, InputKind::exact, shape.rows * 31 + shape.cols);
      INFO(s.id << " " << shape.rows << "x" << shape.cols);
      CHECK(static_cast<double>(run_strategy(s, m, shape)) == matrix_sum_reference(m));
    }
}

TEST_CASE("every strategy is within the rounding bound on random floats", "[gpu][matrix]") {
  PMPP_REQUIRE_GPU();
  const MatrixShape shape{1000, 777};
  const auto m = make_inputs(shape.size(), Op::sum, InputKind::floats, 4);
  for (const MatrixStrategy& s : matrix_strategies()) {
    INFO(s.id);
    const double bound = sum_error_bound(s.rounding_depth(shape), sum_of_magnitudes(m));
    CHECK(pmpp::within(run_strategy(s, m, shape), matrix_sum_reference(m), pmpp::Tolerance{bound, 0}));
  }
}

TEST_CASE("every strategy gives the same result when run twice on one set of buffers", "[gpu][matrix]") {
  PMPP_REQUIRE_GPU();
  // The one-launch strategy's last block resets the block counter for the next launch: a second run
  // that found it dirty would finish early or never.
  const MatrixShape shape{777, 1000};
  const auto m = make_inputs(shape.size(), Op::sum, InputKind::floats, 9);
  const pmpp::DeviceBuffer<float> d(m);
  for (const MatrixStrategy& s : matrix_strategies()) {
    INFO(s.id);
    MatrixPasses passes(s, shape);
    float first = 0, second = 0;
    CUDA_CHECK(cudaMemcpy(&first, passes.run(d.data()), sizeof first, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&second, passes.run(d.data()), sizeof second, cudaMemcpyDeviceToHost));
    CHECK(first == second);
  }
}

TEST_CASE("outer_columns reads matrices that do not start on a 16-byte boundary", "[gpu][matrix]") {
  PMPP_REQUIRE_GPU();
  // The float4 paths need an aligned matrix; one float past an allocation's start is not.
  const MatrixStrategy& columns = matrix_strategies().back();
  REQUIRE(std::string(columns.id) == "outer_columns");
  for (const MatrixShape shape : {MatrixShape{17, 17}, MatrixShape{64, 64}, MatrixShape{4099, 1031}}) {
    INFO(shape.rows << "x" << shape.cols);
    const auto m = make_inputs(shape.size(), Op::sum, InputKind::exact, shape.rows + shape.cols);
    std::vector<float> shifted(m.size() + 1, 1e30f);  // the float before the matrix must not be read
    std::copy(m.begin(), m.end(), shifted.begin() + 1);
    const pmpp::DeviceBuffer<float> d(shifted);
    MatrixPasses passes(columns, shape);
    float got = 0;
    CUDA_CHECK(cudaMemcpy(&got, passes.run(d.data() + 1), sizeof got, cudaMemcpyDeviceToHost));
    CHECK(static_cast<double>(got) == matrix_sum_reference(m));
  }
}
