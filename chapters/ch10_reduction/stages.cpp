// The chapter's stage table: drivers and tests iterate over it, so adding a stage is one row here.
#include <limits>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/launch_config.hpp"  // find_by_id

namespace pmpp::ch10 {

namespace {
constexpr std::size_t kAnyN = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kLargeN = std::size_t{1} << 24;

TextFigures simple_text(std::size_t n) {
  if (!text_formulas_apply(n)) return {};
  return {text_simple_committed(n), text_simple_consumed(n), text_simple_requests(n)};
}
TextFigures convergent_text(std::size_t n) {
  if (!text_formulas_apply(n)) return {};
  // Section 10.4: the same threads add in each iteration as in Fig 10.6, so the same results commit.
  return {text_simple_committed(n), text_convergent_consumed(n), text_convergent_requests(n)};
}
TextFigures shared_memory_text(std::size_t n) {
  if (!text_formulas_apply(n)) return {};
  return {std::nullopt, std::nullopt, text_shared_memory_requests(n)};
}

// Section 10.7 runs Fig 10.11's tree once per segment, so the text's per-block counts apply block by block:
// N - 1 results and N/32 loads for a whole segment of N elements, and one atomic in place of the store.
TextFigures per_segment_text(std::size_t n, std::size_t segment) {
  if (n == 0 || n % segment != 0 || !text_formulas_apply(segment)) return {};
  const std::size_t blocks = n / segment;
  return {n - blocks, std::nullopt, n / 32 + blocks};
}
TextFigures segmented_text(std::size_t n) { return per_segment_text(n, 2 * BLOCK_DIM); }
TextFigures coarsened_text(std::size_t n) { return per_segment_text(n, COARSE_FACTOR * 2 * BLOCK_DIM); }

const char* const kFinalAccesses =
    "+2: thread 0's final load of input[0] and store to *output, which the text's count (of the loop) leaves out";

// What hardware counters see that the text's model does not (the profile table's note).
const char* const kAllInstructions =
    "counters average active threads over every instruction (index arithmetic and loop control run in all "
    "lanes), the text only over the adds";
const char* const kTreeInSharedMemory =
    "at stride s a warp's lanes read input_s[t] and input_s[t + s] for 32 consecutive t: 32 different banks";

const std::vector<Stage> kStages = {
    {"01_simple", "simple: owner computes, stride doubling, in place", "Fig 10.6", SINGLE_BLOCK_MAX_N,
     SINGLE_BLOCK_MAX_N, true, false, true, false, simple_plan, simple_sum_reduction, simple_sum_reduction_counted,
     nullptr, simple_counts, simple_text,
     "the text's formula keeps all N/64 warps busy for 5 iterations, but at stride 32 lane 0 of every warp "
     "still adds, so it is 6 (as the text's own committed-results formula has it): 864 lanes at N = 256, not 736",
     kFinalAccesses, "input[dst] += input[src], in the input array (Fig 10.7)",
     {"-", -1, kAllInstructions}},
    {"02_convergent", "convergent: adjacent owners, stride halving, in place", "Fig 10.9", SINGLE_BLOCK_MAX_N,
     SINGLE_BLOCK_MAX_N, true, false, true, false, convergent_plan, convergent_sum_reduction,
     convergent_sum_reduction_counted, nullptr, convergent_counts, convergent_text, "", kFinalAccesses,
     "input[dst] += input[src], in the input array (Fig 10.8)", {"-", -1, kAllInstructions}},
    {"03_shared_memory", "shared memory: first add while loading, input kept", "Fig 10.11", SINGLE_BLOCK_MAX_N,
     SINGLE_BLOCK_MAX_N, false, false, true, false, shared_memory_plan, shared_memory_sum_reduction,
     shared_memory_sum_reduction_counted, nullptr, shared_memory_counts, shared_memory_text, "", "",
     "step 1: input_s[dst], loaded with input[dst], += input[src]; then input_s[dst] += input_s[src] "
     "(Fig 10.10)",
     {kTreeInSharedMemory, 0, kAllInstructions}},
    {"04_segmented", "segmented: a segment per block, atomicAdd per block", "Fig 10.13", kAnyN, kLargeN, false, false,
     false, false, segmented_plan, segmented_sum_reduction, segmented_sum_reduction_counted, nullptr,
     segmented_counts, segmented_text, "", "", "",
     {kTreeInSharedMemory, 0,
      "counters average active threads over every instruction, the text only over the adds; each block's "
      "atomicAdd on the output is a request of its own"}},
    {"05_coarsened", "coarsened: COARSE_FACTOR x the work per block, any operator", "Fig 10.15", kAnyN, kLargeN,
     false, true, false, false, coarsened_plan, coarsened_reduction, coarsened_reduction_counted, nullptr,
     coarsened_counts, coarsened_text, "", "", "",
     {kTreeInSharedMemory, 0,
      "counters average active threads over every instruction; the serial adds keep all lanes busy, so the "
      "average sits near 32 although the tree idles most lanes"}},
    {"06_single_pass_float4", "GPU-sized grid, float4 loads, warp shuffles, one launch", "beyond the text", kAnyN,
     kLargeN, false, true, false, true, single_pass_plan, single_pass_reduction, single_pass_reduction_counted,
     single_pass_scratch_bytes, single_pass_counts, nullptr, "", "", "",
     {"lane 0 of each warp writes its warp's result; warp 0 reads the 32 results, one bank each", 0,
      "the text has no model for this stage; every lane executes every add, shuffles included, and a float4 "
      "load request moves 16 sectors (4 segments)"}},
};

const Stage kCub = {"cub", "cub::DeviceReduce (library baseline)", "library", kAnyN, kLargeN, false, true, false,
                    true, nullptr, cub_reduction, nullptr, cub_scratch_bytes, nullptr, nullptr, "", "", "",
                    {"-", -1, "-"}};
}  // namespace

const std::vector<Stage>& stages() { return kStages; }

const Stage* find_stage(std::string_view id) { return find_by_id(kStages, id); }

const Stage& cub_baseline() { return kCub; }

}  // namespace pmpp::ch10
