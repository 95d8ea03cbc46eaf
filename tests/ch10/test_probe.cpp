// What the counting build (each stage's kernel on CountedFloat, counted_float.cuh) counts on the GPU,
// against the text's numbers and the model, and the trace of Fig 10.7 / 10.8 as the GPU records it.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "gpu_test.hpp"
#include "pmpp/device_buffer.hpp"

using namespace pmpp::ch10;

namespace {
struct Instrumented {
  ResourceCounts counts;
  ReductionLaunch launch;
};

// One instrumented run of @p stage on @p n small integers (in a fresh, cudaMalloc-aligned buffer).
Instrumented instrumented_run(const Stage& stage, std::size_t n, Op op = Op::sum) {
  const auto in = make_inputs(n, op, InputKind::exact, n);
  pmpp::DeviceBuffer<float> d_in(in.empty() ? std::vector<float>{0.0f} : in), d_out(1);
  pmpp::DeviceBuffer<unsigned char> scratch;
  if (stage.scratch_bytes != nullptr) {
    scratch = pmpp::DeviceBuffer<unsigned char>(std::max<std::size_t>(stage.scratch_bytes(n, op), 1));
    CUDA_CHECK(cudaMemset(scratch.data(), 0, scratch.bytes()));
  }
  Instrumented run;
  run.counts = measure_counts(stage, {d_in.data(), d_out.data(), n, op, scratch.data()}, &run.launch);
  // The counting build must still compute the right answer.
  CHECK(static_cast<double>(d_out.to_host()[0]) == reduce_reference(in, op));
  return run;
}

// Elements per block of a multi-block stage whose grid grows with n (04, 05).
std::size_t segment_of(const Stage& s) {
  const std::size_t big = std::size_t{1} << 30;
  return big / s.plan(big, GpuShape{}).grid;
}

std::string show(const ResourceCounts& c) {
  return "committed " + std::to_string(c.committed) + ", consumed " + std::to_string(c.consumed) + ", requests " +
         std::to_string(c.requests) + ", accesses " + std::to_string(c.accesses) + ", loads " +
         std::to_string(c.loads) + ", load sectors " + std::to_string(c.load_sectors);
}
}  // namespace

TEST_CASE("the GPU counts what the model counts, for every stage and awkward sizes", "[gpu][probe]") {
  PMPP_REQUIRE_GPU();
  const std::vector<std::size_t> single{1, 2, 3, 16, 31, 33, 64, 100, 256, 1000, 2047, 2048};
  const std::vector<std::size_t> multi{1, 5, 2049, 16385, 100003, (std::size_t{1} << 20) + 3, std::size_t{1} << 22};
  for (const Stage& stage : stages())
    for (std::size_t n : stage.max_n == SINGLE_BLOCK_MAX_N ? single : multi) {
      const Instrumented run = instrumented_run(stage, n);
      const ResourceCounts model = stage.model(n, run.launch);
      INFO(stage.id << " n = " << n << "\n  GPU:   " << show(run.counts) << "\n  model: " << show(model));
      CHECK(run.counts == model);
    }
}

TEST_CASE("the operator stages count the same for every operator", "[gpu][probe]") {
  PMPP_REQUIRE_GPU();
  for (const Stage& stage : stages()) {
    if (!stage.all_operators) continue;
    const Instrumented sum = instrumented_run(stage, 100003, Op::sum);
    for (Op op : {Op::max, Op::min, Op::product}) {
      INFO(stage.id << " " << op_name(op));
      CHECK(instrumented_run(stage, 100003, op).counts == sum.counts);
    }
  }
}

TEST_CASE("the text's worked examples, measured on the GPU (N = 256 and 2048)", "[gpu][probe]") {
  PMPP_REQUIRE_GPU();
  const Stage& simple = *find_stage("01_simple");
  const Stage& convergent = *find_stage("02_convergent");
  const Stage& shared = *find_stage("03_shared_memory");

  const ResourceCounts s256 = instrumented_run(simple, 256).counts;
  CHECK(s256.committed == 255);        // the text: 255
  CHECK(s256.consumed == 864);         // the text prints 736: its formula drops stride 32, where every warp adds
  CHECK(s256.requests == 141 + 2);     // the text: 141, for the loop; + the final load and store
  const ResourceCounts c256 = instrumented_run(convergent, 256).counts;
  CHECK(c256.committed == 255);
  CHECK(c256.consumed == 384);         // the text: 384
  CHECK(c256.requests == 36 + 2);      // the text: 36
  const ResourceCounts m256 = instrumented_run(shared, 256).counts;
  CHECK(m256.committed == 255);
  CHECK(m256.requests == 9);           // the text: 8 + 1 = 9

  CHECK(instrumented_run(simple, 2048).counts.requests == 1149 + 2);     // the text: 1149
  CHECK(instrumented_run(convergent, 2048).counts.requests == 204 + 2);  // the text: 204
}

TEST_CASE("the text's stages commit exactly n - (blocks) results on whole segments", "[gpu][probe]") {
  PMPP_REQUIRE_GPU();
  for (const Stage& stage : stages()) {
    if (!stage.text) continue;  // stage 06 adds the identity in every lane past the end, by design
    for (std::size_t n : {std::size_t{1}, std::size_t{77}, std::size_t{2048}, std::size_t{16384 * 3}}) {
      if (n > stage.max_n) continue;
      if (stage.max_n > SINGLE_BLOCK_MAX_N && n % segment_of(stage) != 0) continue;  // a cut-short last segment
      const Instrumented run = instrumented_run(stage, n);
      INFO(stage.id << " n = " << n);
      CHECK(run.counts.committed == n - run.launch.grid);
    }
  }
}

TEST_CASE("the trace of Fig 10.7 (stage 01) as the GPU records it", "[gpu][probe][trace]") {
  PMPP_REQUIRE_GPU();
  const auto in = make_inputs(16, Op::sum, InputKind::exact, 1);
  pmpp::DeviceBuffer<float> d_in(in), d_out(1);
  const auto trace = record_trace(*find_stage("01_simple"), {d_in.data(), d_out.data(), 16, Op::sum, nullptr});
  // Stride 1, 2, 4, 8: owners of multiples of 2, 4, 8, 16 add the element stride away.
  REQUIRE(trace.size() == 8 + 4 + 2 + 1);
  std::size_t k = 0;
  for (unsigned step = 1, stride = 1; stride <= 8; ++step, stride *= 2)
    for (unsigned t = 0; t < 8; t += stride, ++k) {
      INFO("step " << step << " thread " << t);
      CHECK(trace[k].step == step);
      CHECK(trace[k].thread == t);
      CHECK(trace[k].dst == 2 * t);
      CHECK(trace[k].src == 2 * t + stride);
    }
}

TEST_CASE("the trace of Fig 10.8 (stage 02) as the GPU records it", "[gpu][probe][trace]") {
  PMPP_REQUIRE_GPU();
  const auto in = make_inputs(16, Op::sum, InputKind::exact, 1);
  pmpp::DeviceBuffer<float> d_in(in), d_out(1);
  const auto trace =
      record_trace(*find_stage("02_convergent"), {d_in.data(), d_out.data(), 16, Op::sum, nullptr});
  // Stride 8, 4, 2, 1: threads 0 .. stride-1 add the element stride away.
  REQUIRE(trace.size() == 8 + 4 + 2 + 1);
  std::size_t k = 0;
  for (unsigned step = 1, stride = 8; stride >= 1; ++step, stride /= 2)
    for (unsigned t = 0; t < stride; ++t, ++k) {
      INFO("step " << step << " thread " << t);
      CHECK(trace[k].step == step);
      CHECK(trace[k].thread == t);
      CHECK(trace[k].dst == t);
      CHECK(trace[k].src == t + stride);
    }
}

TEST_CASE("stage 03's trace: the first add while loading, then the tree in shared memory", "[gpu][probe][trace]") {
  PMPP_REQUIRE_GPU();
  const auto in = make_inputs(32, Op::sum, InputKind::exact, 2);
  pmpp::DeviceBuffer<float> d_in(in), d_out(1);
  const auto trace =
      record_trace(*find_stage("03_shared_memory"), {d_in.data(), d_out.data(), 32, Op::sum, nullptr});
  REQUIRE(trace.size() == 31);  // 16 while loading, then 8 + 4 + 2 + 1
  // Step 1: input_s[t] (slot t) += input[t + 16] (element t + 16); then slot t += slot t + stride.
  std::size_t k = 0;
  for (unsigned step = 1, stride = 16, from = 16; stride >= 1; ++step, stride /= 2, from = stride)
    for (unsigned t = 0; t < stride; ++t, ++k) {
      INFO("step " << step << " thread " << t);
      CHECK(trace[k].step == step);
      CHECK(trace[k].thread == t);
      CHECK(trace[k].dst == t);
      CHECK(trace[k].src == t + from);
    }
}

TEST_CASE("the trace's step is the iteration, also where a thread starts adding late", "[gpu][probe][trace]") {
  PMPP_REQUIRE_GPU();
  // Stage 02 at n = 5: 4 threads; at stride 4 only thread 0 has a partner (element 4), at stride 2
  // threads 0 and 1 add, at stride 1 thread 0. Thread 1's first add is in iteration 2.
  const auto in = make_inputs(5, Op::sum, InputKind::exact, 3);
  pmpp::DeviceBuffer<float> d_in(in), d_out(1);
  const auto trace =
      record_trace(*find_stage("02_convergent"), {d_in.data(), d_out.data(), 5, Op::sum, nullptr});
  REQUIRE(trace.size() == 4);
  const unsigned want[4][4] = {{1, 0, 0, 4}, {2, 0, 0, 2}, {2, 1, 1, 3}, {3, 0, 0, 1}};  // step, thread, dst, src
  for (std::size_t k = 0; k < 4; ++k) {
    INFO("record " << k);
    CHECK(trace[k].step == want[k][0]);
    CHECK(trace[k].thread == want[k][1]);
    CHECK(trace[k].dst == want[k][2]);
    CHECK(trace[k].src == want[k][3]);
  }
}
