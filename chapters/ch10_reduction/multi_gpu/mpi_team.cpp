// One rank per process under MPI: MPI carries the handles and the copy-engine ring's tokens between
// the processes, CUDA IPC maps the other ranks' memory and events, and NCCL's communicator is set up
// from an id that rank 0 makes and MPI broadcasts.
#include "ch10_reduction/multi_gpu/mpi_team.hpp"

#include <mpi.h>

#include <cstring>
#include <deque>
#include <exception>
#include <set>
#include <stdexcept>
#include <string>

#include "ch10_reduction/multi_gpu/nccl_ranks.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/words.hpp"

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
  MpiTeam(std::size_t capacity, RingOptions ring_options, FusedRingOptions fused_options) {
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
                       std::to_string(node_size) + " share this one): the rings map their neighbours' memory "
                       "with CUDA IPC");
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    device_ = node_rank % count;
    CUDA_CHECK(cudaSetDevice(device_));
    devices_.resize(static_cast<std::size_t>(size_));
    MPI_Allgather(&device_, 1, MPI_INT, devices_.data(), 1, MPI_INT, MPI_COMM_WORLD);
    count_gpus();

    ring_ = std::make_unique<Ring>(rank_, size_, device_, capacity, ring_options, messenger_);
    const ShareMemory share = [this](const std::vector<void*>& local) { return this->share(local); };
    if (capacity > 0) {
      // Every rank runs as many blocks as the most crowded GPU allows each of its ranks.
      if (fused_options.blocks == 0) {
        int mine = fused_ring_blocks(device_, ranks_on_my_gpu_);
        MPI_Allreduce(&mine, &fused_options.blocks, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      }
      fused_ = std::make_unique<FusedRing>(*ring_, fused_options, share);
      fused_status_ = count_of(fused_->blocks(), "block") + " per rank";
    }
    peer_sum_ = std::make_unique<PeerSum>(std::vector<int>{rank_}, std::vector<int>{device_}, size_, share);
    last_block_sum_status_ = last_block_sum_refusal(size_, gpus_);  // the same in every process
    if (last_block_sum_status_.empty()) {
      last_block_sum_ =
          std::make_unique<LastBlockSum>(std::vector<int>{rank_}, std::vector<int>{device_}, size_, share);
      last_block_sum_status_ = "each rank's last block stores into every rank's memory";
    } else {
      last_block_sum_status_ = "not run: " + last_block_sum_status_;
    }
    if (gpus_ < size_) {
      nccl_status_ = "NCCL allows one rank per GPU, and " + count_of(size_, "rank") + " share " +
                     count_of(gpus_, "GPU") + " here: NCCL is left out";
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

  ~MpiTeam() override {
    // Another process's kernels may still read or write what this one shares, and this one's what
    // they share: finish, unmap, and let every process get here before any frees its memory (the
    // members, after this). Not while an error unwinds: the program ends every process instead.
    if (std::uncaught_exceptions() > 0) return;
    cudaSetDevice(device_);
    cudaDeviceSynchronize();
    for (void* pointer : mapped_) cudaIpcCloseMemHandle(pointer);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  std::string description() const override {
    return count_of(size_, "process", "processes") + " under MPI, one rank each, on " + count_of(gpus_, "GPU");
  }
  Ring& ring() override { return *ring_; }
  FusedRing* fused_ring() override { return fused_.get(); }
  std::string fused_status() const override { return fused_status_; }
  PeerSum* peer_sum() override { return peer_sum_.get(); }
  std::string peer_sum_status() const override { return "every rank reads every other's partial sum"; }
  LastBlockSum* last_block_sum() override { return last_block_sum_.get(); }
  std::string last_block_sum_status() const override { return last_block_sum_status_; }
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
  //! [share_memory]
  // Every rank's allocation in this process: its CUDA IPC handle goes to every process, and each opens
  // the others' once (the mappings last until the team ends).
  std::vector<void*> share(const std::vector<void*>& local) {
    if (local.size() != 1) throw std::logic_error("one rank per process");
    cudaIpcMemHandle_t mine;
    CUDA_CHECK(cudaIpcGetMemHandle(&mine, local[0]));
    std::vector<cudaIpcMemHandle_t> all(static_cast<std::size_t>(size_));
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    std::vector<void*> pointers(static_cast<std::size_t>(size_), local[0]);
    CUDA_CHECK(cudaSetDevice(device_));
    for (int q = 0; q < size_; ++q) {
      if (q == rank_) continue;
      void* pointer = nullptr;
      CUDA_CHECK(cudaIpcOpenMemHandle(&pointer, all[static_cast<std::size_t>(q)], cudaIpcMemLazyEnablePeerAccess));
      mapped_.push_back(pointer);
      pointers[static_cast<std::size_t>(q)] = pointer;
    }
    return pointers;
  }
  //! [share_memory]

  // Device numbers differ between processes when CUDA_VISIBLE_DEVICES does: the GPUs' UUIDs tell
  // how many GPUs there are, and how many ranks share this process's.
  void count_gpus() {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    std::vector<char> all(16 * static_cast<std::size_t>(size_));
    MPI_Allgather(prop.uuid.bytes, 16, MPI_BYTE, all.data(), 16, MPI_BYTE, MPI_COMM_WORLD);
    std::set<std::string> distinct;
    const std::string mine(prop.uuid.bytes, 16);
    ranks_on_my_gpu_ = 0;
    for (int r = 0; r < size_; ++r) {
      const std::string uuid(all.data() + 16 * r, 16);
      distinct.insert(uuid);
      ranks_on_my_gpu_ += uuid == mine;
    }
    gpus_ = static_cast<int>(distinct.size());
  }

  int rank_ = 0, size_ = 1, device_ = 0, gpus_ = 1, ranks_on_my_gpu_ = 1;
  std::vector<int> devices_;
  std::vector<void*> mapped_;   // the other processes' memory, opened by share()
  MpiMessenger messenger_;      // outlives the ring, which talks through it until its destructor is done
  std::unique_ptr<Ring> ring_;  // destroyed after the fused ring, the peer sum and NCCL's communicator
  std::unique_ptr<FusedRing> fused_;
  std::unique_ptr<PeerSum> peer_sum_;
  std::unique_ptr<LastBlockSum> last_block_sum_;
  std::string last_block_sum_status_;
  std::string fused_status_ = "left out: no all-reduce in this run", nccl_status_;
  std::unique_ptr<NcclRanks> nccl_;
};
}  // namespace

std::unique_ptr<Team> make_mpi_team(std::size_t capacity, RingOptions ring_options, FusedRingOptions fused_options) {
  return std::make_unique<MpiTeam>(capacity, ring_options, fused_options);
}

}  // namespace pmpp::ch10::multi_gpu
