// Every chapter-10 stage (and the CUB baseline) against the CPU reference: the text's awkward sizes,
// primes, 2^24 + 1; bit-exact on inputs whose sum is exact in float, within the stated bound on random
// floats; n = 0; inputs that are not 16-byte aligned; every launch made twice.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "gpu_test.hpp"
#include "pmpp/check.hpp"
#include "stage_runner.hpp"

using namespace pmpp::ch10;

namespace {
// Single-block stages go up to their limit; the others also take segments +- 1, primes and 2^24 + 1.
const std::vector<std::size_t> kSmall{1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 2047, 2048};
const std::vector<std::size_t> kLarge{2049, 4099, 16383, 16384, 16385, 65537, 1000003, (std::size_t{1} << 24) + 1};

std::vector<const Stage*> all_stages() {
  std::vector<const Stage*> list;
  for (const Stage& s : stages()) list.push_back(&s);
  list.push_back(&cub_baseline());
  return list;
}

std::vector<std::size_t> sizes_for(const Stage& stage) {
  std::vector<std::size_t> sizes;
  for (std::size_t n : kSmall)
    if (n <= stage.max_n) sizes.push_back(n);
  if (stage.max_n > SINGLE_BLOCK_MAX_N) sizes.insert(sizes.end(), kLarge.begin(), kLarge.end());
  return sizes;
}
}  // namespace

TEST_CASE("every stage is bit-exact on inputs whose sum is exact in float", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage* stage : all_stages())
    for (std::size_t n : sizes_for(*stage)) {
      const auto in = make_inputs(n, Op::sum, InputKind::exact, 100 + n);
      REQUIRE(sum_is_exact_in_float(in));
      const double want = reduce_reference(in, Op::sum);
      const auto got = ch10_test::run_stage(*stage, in);
      INFO(stage->id << " n = " << n << ": got " << got.value << ", want " << want);
      CHECK(static_cast<double>(got.value) == want);
    }
}

TEST_CASE("every stage is within gamma_k * sum|x| on random floats", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage* stage : all_stages())
    for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{2047}, std::size_t{2048},
                          std::size_t{100003}, std::size_t{1} << 22}) {
      if (n > stage->max_n) continue;
      const auto in = make_inputs(n, Op::sum, InputKind::floats, 7 + n);
      const double want = reduce_reference(in, Op::sum);
      // Blocks that finish in another order round differently (04, 05): each run within the bound.
      const auto got = ch10_test::run_stage(*stage, in, Op::sum, 3, 0, false);
      const double bound = sum_error_bound(got.launch.rounding_depth, sum_of_magnitudes(in));
      for (float value : got.values) {
        INFO(stage->id << " n = " << n << ": got " << value << ", want " << want << ", bound " << bound);
        CHECK(pmpp::within(value, want, pmpp::Tolerance{bound, 0}));
      }
    }
}

TEST_CASE("stage 06 gives the same bits on every run, even on random floats", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  // Its blocks' results are combined by one block in a fixed order, not by atomics in arrival order.
  const Stage& stage = *find_stage("06_single_pass_float4");
  for (std::size_t n : {std::size_t{2047}, std::size_t{100003}, std::size_t{1} << 22}) {
    INFO("n = " << n);
    ch10_test::run_stage(stage, make_inputs(n, Op::sum, InputKind::floats, n), Op::sum, 5);
  }
}

TEST_CASE("reducing nothing gives the operator's identity", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage* stage : all_stages())
    for (Op op : {Op::sum, Op::max, Op::min, Op::product}) {
      if (!stage->all_operators && op != Op::sum) continue;
      INFO(stage->id << " " << op_name(op));
      CHECK(static_cast<double>(ch10_test::run_stage(*stage, {}, op).value) == identity(op));
    }
}

TEST_CASE("one element reduces to itself, for every operator", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage* stage : all_stages())
    for (Op op : {Op::sum, Op::max, Op::min, Op::product}) {
      if (!stage->all_operators && op != Op::sum) continue;
      INFO(stage->id << " " << op_name(op));
      CHECK(ch10_test::run_stage(*stage, {-2.5f}, op).value == -2.5f);
    }
}

TEST_CASE("inputs that do not start on a 16-byte boundary", "[gpu][stages]") {
  PMPP_REQUIRE_GPU();
  for (const Stage* stage : all_stages())
    for (std::size_t offset : {1, 2, 3})
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{2048}, std::size_t{1000003}}) {
        if (n > stage->max_n) continue;
        const auto in = make_inputs(n, Op::sum, InputKind::exact, n + offset);
        INFO(stage->id << " n = " << n << " offset " << offset);
        CHECK(static_cast<double>(ch10_test::run_stage(*stage, in, Op::sum, 2, offset).value) ==
              reduce_reference(in, Op::sum));
      }
}
