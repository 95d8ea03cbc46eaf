// The three matrix-sum strategies against the CPU reference over awkward shapes: single rows and
// columns, patch +- 1, primes, non-square; bit-exact on small integers, bounded on random floats.
#include <catch2/catch_test_macros.hpp>
#include <vector>

#include "ch10_reduction/matrix_sum.hpp"
#include "ch10_reduction/reduction.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "pmpp/device_buffer.hpp"

using namespace pmpp::ch10;

namespace {
float run_strategy(const MatrixStrategy& s, const std::vector<float>& m, MatrixShape shape) {
  const pmpp::DeviceBuffer<float> d(m);
  MatrixPasses passes(shape);
  const float* result = passes.run(s, d.data());
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
                                        {31, 33}, {255, 257}, {1000, 3}, {3, 1000}, {4096, 4097}, {8191, 1}};
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
  const std::size_t depth = MATRIX_PATCH * MATRIX_PATCH * (pass_shapes(shape).size() - 1);
  const double bound = sum_error_bound(depth, sum_of_magnitudes(m));
  for (const MatrixStrategy& s : matrix_strategies()) {
    INFO(s.id);
    CHECK(pmpp::within(run_strategy(s, m, shape), matrix_sum_reference(m), pmpp::Tolerance{bound, 0}));
  }
}
