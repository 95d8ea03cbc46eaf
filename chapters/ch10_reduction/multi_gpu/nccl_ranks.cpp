// NCCL for the multi-GPU programs (see nccl_ranks.hpp).
#include "ch10_reduction/multi_gpu/nccl_ranks.hpp"

#include <cstdlib>
#include <exception>
#include <sstream>

#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
std::string describe(ncclResult_t code, const char* expression, const char* file, int line) {
  std::ostringstream out;
  out << "NCCL: " << ncclGetErrorString(code) << " from " << expression << " at " << file << ':' << line;
  const char* last = ncclGetLastError(nullptr);  // NCCL's explanation of its last failure, if any
  if (last != nullptr && *last != '\0') out << " (" << last << ")";
  return out.str();
}
}  // namespace

NcclError::NcclError(ncclResult_t code, const char* expression, const char* file, int line)
    : std::runtime_error(describe(code, expression, file, line)) {}

std::string nccl_version() {
  int code = 0;
  NCCL_CHECK(ncclGetVersion(&code));
  // NCCL_VERSION(X, Y, Z): X * 10000 + Y * 100 + Z since 2.9 (X * 1000 + Y * 100 + Z before).
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

//! [nvls_off]
std::string keep_nvls_off() {
  // NVLS lets NVSwitch systems add in the switch itself (NVLink SHARP, multicast). Off, NCCL runs the
  // same kinds of algorithm this chapter writes by hand (rings and trees over point-to-point links),
  // so the comparison is like for like.
  if (const char* set = std::getenv("NCCL_NVLS_ENABLE"))
    return std::string("NCCL_NVLS_ENABLE=") + set + " (as set in the environment)";
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  return "NCCL_NVLS_ENABLE=0 (set by this program: NVLink multicast off)";
}
//! [nvls_off]

void NcclRanks::add_member(int device, ncclComm_t comm) {
  Member m;
  m.device = device;
  m.comm = comm;
  members_.push_back(m);  // owned from here on: the destructor frees whatever was made
  Member& made = members_.back();
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaStreamCreateWithFlags(&made.stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&made.ready, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&made.done, cudaEventDisableTiming));
}

NcclRanks::NcclRanks(const std::vector<int>& devices) {
  std::vector<ncclComm_t> comms(devices.size());
  NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  for (std::size_t i = 0; i < devices.size(); ++i) add_member(devices[i], comms[i]);
}

NcclRanks::NcclRanks(int rank, int ranks, int device, const ncclUniqueId& id) {
  CUDA_CHECK(cudaSetDevice(device));
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, ranks, id, rank));
  add_member(device, comm);
}

NcclRanks::~NcclRanks() {
  // While an error unwinds the stack the other ranks may never reach their destroy: abort instead.
  const bool unwinding = std::uncaught_exceptions() > 0;
  for (Member& m : members_) {
    cudaSetDevice(m.device);
    if (m.stream != nullptr) cudaStreamSynchronize(m.stream);
    if (m.comm != nullptr) {
      if (unwinding)
        ncclCommAbort(m.comm);
      else
        ncclCommDestroy(m.comm);
    }
    if (m.stream != nullptr) cudaStreamDestroy(m.stream);
    if (m.ready != nullptr) cudaEventDestroy(m.ready);
    if (m.done != nullptr) cudaEventDestroy(m.done);
  }
}

//! [nccl_all_reduce]
void NcclRanks::all_reduce(const std::vector<float*>& buffers, std::size_t count) {
  if (buffers.size() != members_.size()) throw std::invalid_argument("one buffer per local rank");
  for (Member& m : members_) {
    CUDA_CHECK(cudaSetDevice(m.device));
    CUDA_CHECK(cudaEventRecord(m.ready, 0));  // after what the default stream holds (the inputs)
    CUDA_CHECK(cudaStreamWaitEvent(m.stream, m.ready, 0));
  }
  // One thread drives several ranks: the group makes NCCL launch them together, since each rank's
  // kernel waits for the others.
  NCCL_CHECK(ncclGroupStart());
  for (std::size_t i = 0; i < members_.size(); ++i)
    NCCL_CHECK(ncclAllReduce(buffers[i], buffers[i], count, ncclFloat, ncclSum, members_[i].comm, members_[i].stream));
  NCCL_CHECK(ncclGroupEnd());
  for (Member& m : members_) {
    CUDA_CHECK(cudaSetDevice(m.device));
    CUDA_CHECK(cudaEventRecord(m.done, m.stream));
    CUDA_CHECK(cudaStreamWaitEvent(0, m.done, 0));
  }
}
//! [nccl_all_reduce]

}  // namespace pmpp::ch10::multi_gpu
