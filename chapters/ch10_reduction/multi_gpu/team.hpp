/// @file team.hpp
/// @brief The ranks of one run and how this process reaches them: every rank in this process (one
/// process driving all GPUs), or one rank per process (under mpirun). The programs' body (session.cpp
/// and the files it calls) is written once against this interface, so both ways of starting them run
/// the same code.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ch10_reduction/multi_gpu/last_block_sum.hpp"
#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu {

class Team {
 public:
  virtual ~Team() = default;
  /// How the ranks were started: "one process driving 2 GPUs", "2 processes under MPI, one rank each".
  virtual std::string description() const = 0;
  /// The copy-engine ring, which owns every local rank's all-reduce vector.
  virtual Ring& ring() = 0;
  int ranks() { return ring().ranks(); }
  /// The fused ring over the same vectors; null where it cannot run here (fused_status() says why).
  virtual FusedRing* fused_ring() = 0;
  /// "396 blocks per rank", or why the fused ring cannot run here.
  virtual std::string fused_status() const = 0;
  /// The last level of the sum across GPUs by peer reads; null where the ranks cannot reach each
  /// other's memory (peer_sum_status() says why).
  virtual PeerSum* peer_sum() = 0;
  virtual std::string peer_sum_status() const = 0;
  /// The sum across GPUs ended in each rank's last block, one kernel per GPU; null where it cannot
  /// run here (last_block_sum_status() says why).
  virtual LastBlockSum* last_block_sum() = 0;
  virtual std::string last_block_sum_status() const = 0;
  /// The CUDA device of any rank, as this process numbers devices.
  virtual int device_of(int rank) const = 0;
  /// True in the one process that prints the tables (rank 0's).
  virtual bool prints() const = 0;
  /// Wait until every process gets here (nothing to wait for in one process).
  virtual void barrier() = 0;
  /// One value per local rank in, one value per rank out, in rank order, in every process.
  virtual std::vector<double> collect(const std::vector<double>& per_local_rank) = 0;
  /// What the programs print about NCCL: its version and NVLS setting, or why it cannot run here.
  virtual std::string nccl_status() const = 0;
  /// True when NCCL runs these ranks: it allows one rank per GPU only.
  virtual bool has_nccl() const = 0;
  /// NCCL's in-place sum over all ranks of @p count floats at buffers[i] (local rank i's device).
  virtual void nccl_all_reduce(const std::vector<float*>& buffers, std::size_t count) = 0;
};

/// Every rank in this process: rank r on devices[r]; several ranks may share a device (then NCCL is
/// left out: it refuses two ranks on one GPU). @p capacity: floats of the largest all-reduce.
std::unique_ptr<Team> make_local_team(const std::vector<int>& devices, std::size_t capacity, RingOptions ring_options,
                                      FusedRingOptions fused_options);

}  // namespace pmpp::ch10::multi_gpu
