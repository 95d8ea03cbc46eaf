// Every rank in one process: the rings' ranks and NCCL's communicators side by side, one host thread
// enqueuing work for every GPU (each call returns at once, so the GPUs run together).
#include <memory>
#include <set>
#include <stdexcept>

#include "ch10_reduction/multi_gpu/nccl_ranks.hpp"
#include "ch10_reduction/multi_gpu/team.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
class LocalTeam final : public Team {
 public:
  LocalTeam(const std::vector<int>& devices, std::size_t capacity, RingOptions ring_options,
            FusedRingOptions fused_options)
      : devices_(devices), ring_(devices, capacity, ring_options) {
    const int gpus = static_cast<int>(std::set<int>(devices.begin(), devices.end()).size());
    try {
      if (capacity > 0) {
        fused_ = std::make_unique<FusedRing>(ring_, fused_options);
        fused_status_ = count_of(fused_->blocks(), "block") + " per rank";
      }
    } catch (const std::runtime_error& e) {  // no peer access between two neighbours
      fused_status_ = std::string("left out: ") + e.what();
    }
    std::vector<int> local(devices.size());
    for (std::size_t r = 0; r < local.size(); ++r) local[r] = static_cast<int>(r);
    try {
      peer_sum_ = std::make_unique<PeerSum>(local, devices, static_cast<int>(devices.size()), ShareMemory{});
      peer_sum_status_ = "every rank reads every other's partial sum";
    } catch (const std::runtime_error& e) {
      peer_sum_status_ = std::string("left out: ") + e.what();
    }
    try {
      last_block_sum_ =
          std::make_unique<LastBlockSum>(local, devices, static_cast<int>(devices.size()), ShareMemory{});
      last_block_sum_status_ = "each rank's last block stores into every rank's memory";
    } catch (const std::runtime_error& e) {  // ranks sharing a GPU, or no peer access
      last_block_sum_status_ = std::string("not run: ") + e.what();
    }
    if (gpus < static_cast<int>(devices.size())) {
      nccl_status_ = "NCCL allows one rank per GPU, and " + count_of(static_cast<long long>(devices.size()), "rank") +
                     " share " + count_of(gpus, "GPU") + " here: NCCL is left out";
      return;
    }
    nccl_status_ = "NCCL " + nccl_version() + "; " + keep_nvls_off();
    nccl_ = std::make_unique<NcclRanks>(devices);
  }

  std::string description() const override {
    const std::set<int> distinct(devices_.begin(), devices_.end());
    std::string text = "one process driving " + count_of(static_cast<long long>(distinct.size()), "GPU");
    if (distinct.size() < devices_.size())
      text += ", " + count_of(static_cast<long long>(devices_.size()), "rank") + " sharing them";
    return text;
  }
  Ring& ring() override { return ring_; }
  FusedRing* fused_ring() override { return fused_.get(); }
  std::string fused_status() const override { return fused_status_; }
  PeerSum* peer_sum() override { return peer_sum_.get(); }
  std::string peer_sum_status() const override { return peer_sum_status_; }
  LastBlockSum* last_block_sum() override { return last_block_sum_.get(); }
  std::string last_block_sum_status() const override { return last_block_sum_status_; }
  int device_of(int rank) const override { return devices_.at(static_cast<std::size_t>(rank)); }
  bool prints() const override { return true; }
  void barrier() override {}
  std::vector<double> collect(const std::vector<double>& per_local_rank) override { return per_local_rank; }
  std::string nccl_status() const override { return nccl_status_; }
  bool has_nccl() const override { return nccl_ != nullptr; }
  void nccl_all_reduce(const std::vector<float*>& buffers, std::size_t count) override {
    nccl_->all_reduce(buffers, count);
  }

 private:
  std::vector<int> devices_;
  Ring ring_;                          // destroyed last: the others use its vectors or its GPUs
  std::unique_ptr<FusedRing> fused_;
  std::unique_ptr<PeerSum> peer_sum_;
  std::unique_ptr<LastBlockSum> last_block_sum_;
  std::unique_ptr<NcclRanks> nccl_;
  std::string fused_status_, peer_sum_status_, last_block_sum_status_, nccl_status_;
};
}  // namespace

std::unique_ptr<Team> make_local_team(const std::vector<int>& devices, std::size_t capacity, RingOptions ring_options,
                                      FusedRingOptions fused_options) {
  return std::make_unique<LocalTeam>(devices, capacity, ring_options, fused_options);
}

}  // namespace pmpp::ch10::multi_gpu
