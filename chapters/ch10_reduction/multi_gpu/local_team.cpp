// Every rank in one process: the ring's ranks and NCCL's communicators side by side, one host thread
// enqueuing work for every GPU (each call returns at once, so the GPUs run together).
#include <algorithm>
#include <memory>
#include <set>

#include "ch10_reduction/multi_gpu/nccl_ranks.hpp"
#include "ch10_reduction/multi_gpu/team.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
class LocalTeam final : public Team {
 public:
  LocalTeam(const std::vector<int>& devices, std::size_t capacity, RingOptions options)
      : devices_(devices), ring_(devices, capacity, options) {
    const std::set<int> distinct(devices.begin(), devices.end());
    if (distinct.size() < devices.size()) {
      nccl_status_ = "NCCL allows one rank per GPU, and " + std::to_string(devices.size()) + " ranks share " +
                     std::to_string(distinct.size()) + " GPU(s) here: NCCL is left out, the hand-written ring runs";
      return;
    }
    nccl_status_ = "NCCL " + nccl_version() + "; " + keep_nvls_off();
    nccl_ = std::make_unique<NcclRanks>(devices);
  }

  std::string description() const override {
    const std::set<int> distinct(devices_.begin(), devices_.end());
    std::string text = "one process driving " + std::to_string(distinct.size()) + " GPU(s)";
    if (distinct.size() < devices_.size()) text += ", " + std::to_string(devices_.size()) + " ranks sharing them";
    return text;
  }
  Ring& ring() override { return ring_; }
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
  Ring ring_;
  std::string nccl_status_;
  std::unique_ptr<NcclRanks> nccl_;
};
}  // namespace

std::unique_ptr<Team> make_local_team(const std::vector<int>& devices, std::size_t capacity, RingOptions options) {
  return std::make_unique<LocalTeam>(devices, capacity, options);
}

}  // namespace pmpp::ch10::multi_gpu
