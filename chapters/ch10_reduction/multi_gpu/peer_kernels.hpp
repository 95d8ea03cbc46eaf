/// @file peer_kernels.hpp
/// @brief The launchers of the kernels that read other GPUs' memory (fused_ring.cu, peer_sum.cu), for
/// the classes that set up what they read (fused_ring.cpp, peer_sum.cpp).
#pragma once

#include <cstdint>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu::detail {

/// What one rank's blocks of the fused ring need, as this process addresses it. A rank's mailbox is
/// kMaxFusedChunks `ready` flags (written by its left neighbour: how far it has got with each piece)
/// followed by kMaxFusedChunks `done` flags (written by its right neighbour: it no longer reads this
/// rank's vector).
struct FusedRankView {
  float* vector = nullptr;             ///< this rank's, on this GPU
  const float* left_vector = nullptr;  ///< the left neighbour's: a peer pointer
  Flag* ready = nullptr;               ///< this rank's ready flags
  Flag* done = nullptr;                ///< this rank's done flags
  Flag* right_ready = nullptr;         ///< the right neighbour's ready flags
  Flag* left_done = nullptr;           ///< the left neighbour's done flags
  int rank = 0;
};

/// Enqueue all-reduce number @p call (from 1) of the ranks whose views are at @p views (device memory
/// of the current device, @p ranks_here of them) on the current device's default stream: one
/// cooperative launch of @p blocks blocks per rank.
void launch_fused_ring(const FusedRankView* views, int ranks_here, int blocks, const RingPlan& plan,
                       std::uint64_t call);

/// One rank's slot of the sum across GPUs, in its GPU's memory, zeroed once. `published[call % 2]`
/// holds the call's number in its high 32 bits and the partial sum's bits in its low 32.
struct PeerSlot {
  Flag published[2];
  float partial;  ///< written by the rank's reduction
  float total;    ///< written by the combine kernel
};

/// Enqueue call number @p call (from 1) of the combine of the @p count ranks at @p ranks_here (device
/// memory) on the current device's default stream, one kernel for all of them; @p slots: every rank's
/// slot as this process addresses it (device memory of the current device).
void launch_peer_sum(PeerSlot* const* slots, int ranks, const int* ranks_here, int count, std::uint64_t call);

}  // namespace pmpp::ch10::multi_gpu::detail
