/// @file last_block_sum.hpp
/// @brief The sum across GPUs in one kernel per GPU: each rank's blocks reduce its shard as stage 06
/// does, and the block that finishes last on each rank trades the rank's partial sum with the other
/// ranks' last blocks through small arrays in GPU memory (last_block_sum.cu, last_block_sum.cpp).
/// Plain C++, so tests and programs are ordinary .cpp files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu {

// ---- The words the last blocks trade (host and device) -------------------------------------------------

/// What rank r's last block stores for call number @p call (from 1): the call's number in the high 32
/// bits, the partial sum's bits in the low 32. One 64-bit store carries both, so a reader that sees
/// this call's number sees this call's value, with no fence between a value and a flag.
PMPP_HOST_DEVICE constexpr Flag partial_word(std::uint64_t call, std::uint32_t value_bits) {
  return (static_cast<Flag>(call) << 32) | value_bits;
}
PMPP_HOST_DEVICE constexpr std::uint64_t call_of(Flag word) { return word >> 32; }
PMPP_HOST_DEVICE constexpr std::uint32_t value_bits_of(Flag word) { return static_cast<std::uint32_t>(word); }

/// Where rank @p from's word of call @p call lands in every rank's array of 2p words: the half of the
/// call's parity. A rank stores call k + 2 over call k only once it has read every rank's call k + 1,
/// and each rank stored that after it had read all of call k: no word is overwritten before it is read,
/// and nothing is ever reset (the numbers only grow).
PMPP_HOST_DEVICE constexpr int exchange_slot(std::uint64_t call, int ranks, int from) {
  return static_cast<int>(call % 2) * ranks + from;
}
/// Words in each rank's array.
constexpr int exchange_words(int ranks) { return 2 * ranks; }

/// Why the last-block ending cannot run @p ranks ranks on @p gpus distinct GPUs, or "" when it can.
/// Each last block waits, on its SM, for every other rank's; a rank whose kernel is queued behind
/// another rank's on the same GPU would never start, so every rank needs a GPU of its own.
std::string last_block_sum_refusal(int ranks, int gpus);

// ---- The ending ------------------------------------------------------------------------------------

/// The sum across GPUs without a second launch: one kernel per rank reduces its shard with stage 06's
/// loop and block combine; the block that finishes last stores the rank's partial sum into slot r of
/// every rank's array (stores over the links), waits until its own array holds every rank's word of
/// this call, and adds them in rank order, so every rank ends with the same bits. Runs on each local
/// rank's device's default stream.
class LastBlockSum {
 public:
  /// Rank local_ranks[i] of @p ranks on devices[i]; @p share: see ShareMemory. Throws
  /// std::runtime_error where two local ranks share a GPU (last_block_sum_refusal) or one rank's GPU
  /// cannot reach another's memory. Across processes the caller must make sure that no two ranks share
  /// a GPU.
  LastBlockSum(const std::vector<int>& local_ranks, const std::vector<int>& devices, int ranks,
               const ShareMemory& share);
  ~LastBlockSum();
  LastBlockSum(const LastBlockSum&) = delete;
  LastBlockSum& operator=(const LastBlockSum&) = delete;

  /// Enqueue the next call: local rank i sums counts[i] floats at inputs[i] (its device's memory,
  /// 16-byte aligned), and every local rank's totals[i] gets the sum over every rank's shard. Every
  /// rank calls it as often as the others. Returns each local rank's launch (grid, rounding depth of
  /// its partial sum).
  std::vector<ReductionLaunch> sum(const std::vector<const float*>& inputs, const std::vector<std::size_t>& counts,
                                   const std::vector<float*>& totals);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

namespace detail {
/// Enqueue one rank's kernel on the current device's default stream: @p n floats at @p input,
/// stage 06's scratch at @p scratch (single_pass_scratch_bytes, zeroed once), every rank's array as
/// this process addresses it at @p arrays (device memory of the current device), call number @p call.
ReductionLaunch launch_last_block_sum(const float* input, std::size_t n, void* scratch, Flag* const* arrays,
                                      int ranks, int rank, std::uint64_t call, float* total);
}  // namespace detail

}  // namespace pmpp::ch10::multi_gpu
