// The host side of the 2D matrix sums: pass shapes, the ping-pong buffers and the pass loop, the
// strategy table, and the CPU reference.
#include <cstdio>
#include <mutex>
#include <sstream>

#include "ch10_reduction/matrix_sum/matrix_sum.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"
#include "pmpp/parallel.hpp"

namespace pmpp::ch10 {

MatrixShape pass_output(MatrixShape in, unsigned patch) {
  return {ceil_div<std::size_t>(in.rows, patch), ceil_div<std::size_t>(in.cols, patch)};
}

std::vector<MatrixShape> pass_shapes(MatrixShape in, unsigned patch) {
  std::vector<MatrixShape> shapes{in};
  while (shapes.back().size() > 1) shapes.push_back(pass_output(shapes.back(), patch));
  return shapes;
}

std::string PassLaunch::to_string() const {
  std::ostringstream s;
  s << grid_x << "x" << grid_y << " x " << block_x << "x" << block_y;
  return s.str();
}

namespace {
MatrixShape patch_pass(MatrixShape in) { return pass_output(in); }
MatrixShape whole_matrix(MatrixShape) { return {1, 1}; }
// Each element goes through at most MATRIX_PATCH^2 roundings per pass (the outer strategies' serial
// sums; the tree has fewer).
std::size_t patch_passes_depth(MatrixShape in) { return MATRIX_PATCH * MATRIX_PATCH * (pass_shapes(in).size() - 1); }
}  // namespace

const std::vector<MatrixStrategy>& matrix_strategies() {
  static const std::vector<MatrixStrategy> strategies = {
      {"inner", "tree inside each 16x16 block, shared memory, barriers", patch_pass, reduction_inner_pass, nullptr,
       patch_passes_depth},
      {"outer", "one thread sums a 16x16 patch row by row", patch_pass, reduction_outer_pass, nullptr,
       patch_passes_depth},
      {"outer_coalesced", "one thread sums 16x16 elements a pass-width apart", patch_pass,
       reduction_outer_coalesced_pass, nullptr, patch_passes_depth},
      {"outer_columns", "one thread per 16x1 column patch, one launch for the whole matrix", whole_matrix,
       reduction_outer_columns_pass, outer_columns_scratch_bytes, outer_columns_rounding_depth},
  };
  return strategies;
}

std::vector<MatrixShape> pass_shapes(MatrixShape in, const MatrixStrategy& strategy) {
  std::vector<MatrixShape> shapes{in};
  while (shapes.back().size() > 1) shapes.push_back(strategy.next_shape(shapes.back()));
  return shapes;
}

MatrixPasses::MatrixPasses(const MatrixStrategy& strategy, MatrixShape shape)
    : strategy_(strategy), shapes_(pass_shapes(shape, strategy)) {
  // Pass k writes A if k is even, B if odd; the first two outputs are the largest each buffer holds.
  if (shapes_.size() > 1) a_ = DeviceBuffer<float>(shapes_[1].size());
  if (shapes_.size() > 2) b_ = DeviceBuffer<float>(shapes_[2].size());
  if (strategy.scratch_bytes != nullptr && shapes_.size() > 1) {
    scratch_ = DeviceBuffer<unsigned char>(strategy.scratch_bytes(shape));
    CUDA_CHECK(cudaMemset(scratch_.data(), 0, scratch_.bytes()));  // the block counter starts at 0
  }
}

const float* MatrixPasses::pass_input(std::size_t k, const float* in) const {
  if (k == 0) return in;
  return (k - 1) % 2 == 0 ? a_.data() : b_.data();
}

float* MatrixPasses::pass_output_buffer(std::size_t k) { return k % 2 == 0 ? a_.data() : b_.data(); }

PassLaunch MatrixPasses::run_pass(std::size_t k, const float* in) {
  return strategy_.launch_pass(pass_input(k, in), shapes_[k], pass_output_buffer(k), scratch_.data());
}

const float* MatrixPasses::run(const float* in, std::vector<PassLaunch>* launches) {
  for (std::size_t k = 0; k < passes(); ++k) {
    const PassLaunch launch = run_pass(k, in);
    if (launches != nullptr) launches->push_back(launch);
  }
  return passes() == 0 ? in : pass_output_buffer(passes() - 1);
}

std::string pass_limiter(const PassEvidence& e) {
  const double dram_share = e.peak_dram_gbps > 0 && e.ms > 0 ? e.input_bytes / (e.peak_dram_gbps * 1e6) / e.ms : 0;
  char text[160];
  if (dram_share >= 0.75) {
    std::snprintf(text, sizeof text, "DRAM bandwidth (%.0f%% of peak)", 100 * dram_share);
  } else if (e.ms <= 2 * e.empty_launch_ms) {
    std::snprintf(text, sizeof text, "launch latency");
  } else if (e.threads < e.resident_threads / 4) {
    std::snprintf(text, sizeof text, "too few threads (%.0f of %.0f)", e.threads, e.resident_threads);
  } else {
    std::snprintf(text, sizeof text, "access pattern, issue (DRAM %.0f%%)", 100 * dram_share);
  }
  return text;
}

double matrix_sum_reference(const std::vector<float>& m) {
  double total = 0;
  std::mutex lock;
  parallel_for(static_cast<std::int64_t>(m.size()), [&](std::int64_t begin, std::int64_t end) {
    double s = 0;
    for (std::int64_t i = begin; i < end; ++i) s += m[static_cast<std::size_t>(i)];
    const std::lock_guard<std::mutex> guard(lock);
    total += s;
  });
  return total;
}

}  // namespace pmpp::ch10
