/// @file nccl_ranks.hpp
/// @brief NCCL for the multi-GPU programs: its errors as exceptions, NVLink multicast kept off, and the
/// communicators of the ranks one process drives, with the in-place all-reduce the programs time.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace pmpp::ch10::multi_gpu {

/// A failed NCCL call, with the call's text and NCCL's own explanation.
class NcclError : public std::runtime_error {
 public:
  NcclError(ncclResult_t code, const char* expression, const char* file, int line);
};

/// Evaluate an NCCL call once; throw NcclError if it did not return ncclSuccess.
#define NCCL_CHECK(expression)                                                        \
  do {                                                                                \
    const ncclResult_t pmpp_nccl_status_ = (expression);                              \
    if (pmpp_nccl_status_ != ncclSuccess)                                             \
      throw ::pmpp::ch10::multi_gpu::NcclError(pmpp_nccl_status_, #expression, __FILE__, __LINE__); \
  } while (0)

/// The NCCL library's version, "2.28.9".
std::string nccl_version();

/// Keep NVLink multicast (NVLS) off for every communicator this process creates: set
/// NCCL_NVLS_ENABLE=0 unless the user set it already. Call it before the first communicator. Returns
/// the line the programs print about it.
std::string keep_nvls_off();

/// The NCCL communicators of the ranks this process drives, each with its own stream.
class NcclRanks {
 public:
  /// Every rank in this process, rank r on devices[r] (ncclCommInitAll; the devices must differ).
  explicit NcclRanks(const std::vector<int>& devices);
  /// Rank @p rank of @p ranks, one per process, on @p device; @p id comes from rank 0's ncclGetUniqueId.
  NcclRanks(int rank, int ranks, int device, const ncclUniqueId& id);
  NcclRanks(const NcclRanks&) = delete;
  NcclRanks& operator=(const NcclRanks&) = delete;
  ~NcclRanks();

  /// In place, the sum over all ranks of @p count floats at buffers[i] (on local rank i's device).
  /// Like the ring: it starts after what each device's default stream holds, and what is enqueued there
  /// afterwards waits for it.
  void all_reduce(const std::vector<float*>& buffers, std::size_t count);

 private:
  struct Member {
    int device = 0;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t ready = nullptr, done = nullptr;
  };
  void add_member(int device, ncclComm_t comm);
  std::vector<Member> members_;
};

}  // namespace pmpp::ch10::multi_gpu
