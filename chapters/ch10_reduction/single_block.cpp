// What the launchers check and plan alike: the single-block stages' (01-03) block size, limit and plan,
// and the operator the text's sum kernels (01-04) take.
#include <stdexcept>
#include <string>

#include "ch10_reduction/reduction.hpp"

namespace pmpp::ch10 {

unsigned single_block_threads(std::size_t n) {
  unsigned threads = 1;
  while (2 * static_cast<std::size_t>(threads) < n) threads *= 2;
  return threads;
}

ReductionLaunch single_block_plan(std::size_t n, std::size_t shared_bytes) {
  ReductionLaunch c;
  c.launches = 1;  // the kernel, or for n = 0 the identity written to the output
  if (n == 0) return c;
  c.grid = 1;  // __syncthreads() synchronizes one block only: the whole tree must live in it
  c.block = single_block_threads(n);
  c.shared_bytes = shared_bytes;
  // A tree over 2 * block leaves: log2(2 * block) levels of adds.
  for (std::size_t leaves = 1; leaves < 2 * static_cast<std::size_t>(c.block); leaves *= 2) ++c.rounding_depth;
  return c;
}

void require_single_block_sum(const ReduceArgs& args, const char* stage_id) {
  if (args.n > SINGLE_BLOCK_MAX_N)
    throw std::invalid_argument(std::string("stage ") + stage_id + " reduces in one block of at most " +
                                std::to_string(MAX_BLOCK_DIM) + " threads, two elements each: n <= " +
                                std::to_string(SINGLE_BLOCK_MAX_N) + ", got " + std::to_string(args.n) +
                                " (stage 04 lifts the limit)");
  require_sum(args, stage_id);
}

void require_sum(const ReduceArgs& args, const char* stage_id) {
  if (args.op != Op::sum)
    throw std::invalid_argument(std::string("stage ") + stage_id + " is the text's sum kernel; " + op_name(args.op) +
                                " needs stage 05 or 06");
}

}  // namespace pmpp::ch10
