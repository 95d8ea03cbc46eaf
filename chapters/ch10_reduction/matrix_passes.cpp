// The host side of the 2D matrix sums: pass shapes, the ping-pong buffers and the pass loop, the
// strategy table, and the CPU reference.
#include <mutex>
#include <sstream>

#include "ch10_reduction/matrix_sum.hpp"
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
  s << "grid " << grid_x << "x" << grid_y << " block " << block_x << "x" << block_y;
  return s.str();
}

const std::vector<MatrixStrategy>& matrix_strategies() {
  static const std::vector<MatrixStrategy> strategies = {
      {"inner", "tree inside each 16x16 block, shared memory, barriers", reduction_inner_pass},
      {"outer", "one thread sums a 16x16 patch row by row", reduction_outer_pass},
      {"outer_coalesced", "one thread sums 16x16 elements a pass-width apart", reduction_outer_coalesced_pass},
  };
  return strategies;
}

MatrixPasses::MatrixPasses(MatrixShape shape) : shapes_(pass_shapes(shape)) {
  // Pass k writes A if k is even, B if odd; the first two outputs are the largest each buffer holds.
  if (shapes_.size() > 1) a_ = DeviceBuffer<float>(shapes_[1].size());
  if (shapes_.size() > 2) b_ = DeviceBuffer<float>(shapes_[2].size());
}

const float* MatrixPasses::pass_input(std::size_t k, const float* in) const {
  if (k == 0) return in;
  return (k - 1) % 2 == 0 ? a_.data() : b_.data();
}

float* MatrixPasses::pass_output_buffer(std::size_t k) { return k % 2 == 0 ? a_.data() : b_.data(); }

const float* MatrixPasses::run(const MatrixStrategy& strategy, const float* in, std::vector<PassLaunch>* launches) {
  const float* current = in;
  for (std::size_t k = 0; k < passes(); ++k) {
    float* out = pass_output_buffer(k);
    const PassLaunch launch = strategy.launch_pass(current, shapes_[k], out);
    if (launches != nullptr) launches->push_back(launch);
    current = out;
  }
  return current;
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
