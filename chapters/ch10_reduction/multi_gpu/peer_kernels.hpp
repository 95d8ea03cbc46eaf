/// @file peer_kernels.hpp
/// @brief The launchers of the kernels that reach other GPUs' memory (fused_ring.cu, peer_sum.cu), for
/// the classes that set up what they read (fused_ring.cpp, peer_sum.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu::detail {

/// What one rank's blocks of the fused ring need, as this process addresses it. A rank's mailbox is
/// kMaxFusedChunks `ready` flags (written by its left neighbour: how far its pushes into this rank
/// have got, piece by piece) followed by kMaxFusedChunks `freed` flags (written by its right
/// neighbour: how far it has read what this rank pushed into its staging).
struct FusedRankView {
  float* vector = nullptr;        ///< this rank's, on this GPU
  const float* staging = nullptr; ///< this rank's staging: what the left neighbour pushes
  float* right_vector = nullptr;  ///< the right neighbour's vector: a peer pointer (all-gather)
  float* right_staging = nullptr; ///< the right neighbour's staging: a peer pointer (reduce-scatter)
  std::size_t slot_stride = 0;    ///< floats between two staging slots (a segment of the largest vector)
  Flag* ready = nullptr;          ///< this rank's ready flags
  Flag* freed = nullptr;          ///< this rank's freed flags
  Flag* right_ready = nullptr;    ///< the right neighbour's ready flags
  Flag* left_freed = nullptr;     ///< the left neighbour's freed flags
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
