// One rank per process under MPI: MPI carries the handles and the ring's tokens between the processes,
// CUDA IPC maps the neighbours' memory and events, and NCCL's communicator is set up from an id that
// rank 0 makes and MPI broadcasts.
#include "ch10_reduction/multi_gpu/mpi_team.hpp"

#include <mpi.h>

#include <cstring>
#include <deque>
#include <exception>
#include <set>
#include <string>

#include "ch10_reduction/multi_gpu/nccl_ranks.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
// The ring's host-to-host messages over MPI, on a communicator of their own so that their tags meet
// no other traffic. Sends do not wait for the receiver: each keeps its bytes until MPI is done with them.
class MpiMessenger final : public Messenger {
 public:
  MpiMessenger() { MPI_Comm_dup(MPI_COMM_WORLD, &comm_); }
  ~MpiMessenger() override {
    if (std::uncaught_exceptions() > 0) return;  // the program ends every process; do not wait here
    flush();
    MPI_Comm_free(&comm_);
  }
  MpiMessenger(const MpiMessenger&) = delete;
  MpiMessenger& operator=(const MpiMessenger&) = delete;

  void send(int to, int tag, const void* data, std::size_t bytes) override {
    // Forget the sends that are done, so that the queue stays short over millions of tokens.
    while (!pending_.empty()) {
      int done = 0;
      MPI_Test(&pending_.front().request, &done, MPI_STATUS_IGNORE);
      if (!done) break;
      pending_.pop_front();
    }
    pending_.push_back({std::vector<char>(static_cast<const char*>(data), static_cast<const char*>(data) + bytes),
                        MPI_REQUEST_NULL});
    Pending& p = pending_.back();
    MPI_Isend(p.bytes.data(), static_cast<int>(bytes), MPI_BYTE, to, tag, comm_, &p.request);
  }
  void receive(int from, int tag, void* data, std::size_t bytes) override {
    MPI_Recv(data, static_cast<int>(bytes), MPI_BYTE, from, tag, comm_, MPI_STATUS_IGNORE);
  }
  void flush() override {
    for (Pending& p : pending_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
    pending_.clear();
  }

 private:
  struct Pending {
    std::vector<char> bytes;
    MPI_Request request;
  };
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::deque<Pending> pending_;
};

class MpiTeam final : public Team {
 public:
  MpiTeam(std::size_t capacity, RingOptions options) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // The ranks on this machine, numbered from 0: each takes the GPU of its number (mod the GPUs here).
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    int node_rank = 0, node_size = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    if (node_size != size_)
      throw UsageError("all " + std::to_string(size_) + " ranks must run on one machine (" +
                       std::to_string(node_size) + " share this one): the ring maps its neighbours' memory with CUDA IPC");
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    device_ = node_rank % count;
    devices_.resize(static_cast<std::size_t>(size_));
    MPI_Allgather(&device_, 1, MPI_INT, devices_.data(), 1, MPI_INT, MPI_COMM_WORLD);
    gpus_ = count_distinct_gpus();

    ring_ = std::make_unique<Ring>(rank_, size_, device_, capacity, options, messenger_);
    if (gpus_ < size_) {
      nccl_status_ = "NCCL allows one rank per GPU, and " + std::to_string(size_) + " ranks share " +
                     std::to_string(gpus_) + " GPU(s) here: NCCL is left out, the hand-written ring runs";
      return;
    }
    nccl_status_ = "NCCL " + nccl_version() + "; " + keep_nvls_off();
    //! [nccl_unique_id]
    ncclUniqueId id;
    if (rank_ == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    nccl_ = std::make_unique<NcclRanks>(rank_, size_, device_, id);
    //! [nccl_unique_id]
  }

  std::string description() const override {
    return std::to_string(size_) + " processes under MPI, one rank each, on " + std::to_string(gpus_) + " GPU(s)";
  }
  Ring& ring() override { return *ring_; }
  int device_of(int rank) const override { return devices_.at(static_cast<std::size_t>(rank)); }
  bool prints() const override { return rank_ == 0; }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  std::vector<double> collect(const std::vector<double>& per_local_rank) override {
    std::vector<double> all(static_cast<std::size_t>(size_));
    MPI_Allgather(per_local_rank.data(), 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
    return all;
  }
  std::string nccl_status() const override { return nccl_status_; }
  bool has_nccl() const override { return nccl_ != nullptr; }
  void nccl_all_reduce(const std::vector<float*>& buffers, std::size_t count) override {
    nccl_->all_reduce(buffers, count);
  }

 private:
  // Device numbers differ between processes when CUDA_VISIBLE_DEVICES does: the GPUs' UUIDs tell.
  int count_distinct_gpus() const {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    std::vector<char> all(16 * static_cast<std::size_t>(size_));
    MPI_Allgather(prop.uuid.bytes, 16, MPI_BYTE, all.data(), 16, MPI_BYTE, MPI_COMM_WORLD);
    std::set<std::string> distinct;
    for (int r = 0; r < size_; ++r) distinct.insert(std::string(all.data() + 16 * r, 16));
    return static_cast<int>(distinct.size());
  }

  int rank_ = 0, size_ = 1, device_ = 0, gpus_ = 1;
  std::vector<int> devices_;
  MpiMessenger messenger_;      // outlives the ring, which talks through it until its destructor is done
  std::unique_ptr<Ring> ring_;  // destroyed after NCCL's communicator, before the messenger
  std::string nccl_status_;
  std::unique_ptr<NcclRanks> nccl_;
};
}  // namespace

std::unique_ptr<Team> make_mpi_team(std::size_t capacity, RingOptions options) {
  return std::make_unique<MpiTeam>(capacity, options);
}

}  // namespace pmpp::ch10::multi_gpu
