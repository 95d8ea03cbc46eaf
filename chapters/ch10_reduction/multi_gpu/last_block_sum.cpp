// The sum across GPUs ended in each rank's last block: each rank's array of words and stage 06's
// scratch, every rank's array as this process addresses it, and one kernel per rank for each call.
// The kernel is in last_block_sum.cu.
#include "ch10_reduction/multi_gpu/last_block_sum.hpp"

#include <cuda_runtime_api.h>

#include <set>
#include <stdexcept>
#include <utility>

#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10::multi_gpu {

std::string last_block_sum_refusal(int ranks, int gpus) {
  if (gpus >= ranks) return "";
  return count_of(ranks, "rank") + " share " + count_of(gpus, "GPU") +
         ": a last block that waits for a rank queued behind it on its own GPU would wait forever";
}

struct LastBlockSum::State {
  int ranks = 1;
  std::uint64_t calls = 0;  ///< sums so far: the words carry the count
  struct Rank {
    int device = 0, rank = 0;
    DeviceBuffer<Flag> words;               ///< this rank's array: 2p words, written by every rank
    DeviceBuffer<Flag*> arrays;             ///< every rank's array, as this process addresses it
    DeviceBuffer<unsigned char> scratch;    ///< stage 06's block counter and block results
  };
  std::vector<Rank> local;
};

namespace {
// Every rank's array as this process addresses it: the handles traded by `share` across processes; in
// one process the pointers themselves, once every GPU may store into every other GPU's memory.
std::vector<Flag*> every_rank_array(const std::vector<void*>& mine, const std::vector<int>& devices, int ranks,
                                    const ShareMemory& share) {
  const std::vector<void*> all = share ? share(mine) : mine;
  if (static_cast<int>(all.size()) != ranks) throw std::logic_error("LastBlockSum: every rank's array is needed");
  for (std::size_t a = 0; !share && a < devices.size(); ++a)
    for (std::size_t b = 0; b < devices.size(); ++b)
      if (!enable_peer_access(devices[a], devices[b]))
        throw std::runtime_error("GPU " + std::to_string(devices[a]) + " cannot store into GPU " +
                                 std::to_string(devices[b]) + "'s memory (no peer access)");
  std::vector<Flag*> arrays;
  for (void* array : all) arrays.push_back(static_cast<Flag*>(array));
  return arrays;
}
}  // namespace

LastBlockSum::LastBlockSum(const std::vector<int>& local_ranks, const std::vector<int>& devices, int ranks,
                           const ShareMemory& share)
    : state_(std::make_unique<State>()) {
  if (local_ranks.size() != devices.size() || local_ranks.empty())
    throw std::invalid_argument("LastBlockSum: one device per local rank");
  const std::string refusal = last_block_sum_refusal(
      static_cast<int>(devices.size()), static_cast<int>(std::set<int>(devices.begin(), devices.end()).size()));
  if (!refusal.empty()) throw std::runtime_error(refusal);
  State& s = *state_;
  s.ranks = ranks;
  std::vector<void*> mine;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    CUDA_CHECK(cudaSetDevice(devices[i]));
    State::Rank r;
    r.device = devices[i];
    r.rank = local_ranks[i];
    r.words = DeviceBuffer<Flag>(static_cast<std::size_t>(exchange_words(ranks)));
    CUDA_CHECK(cudaMemset(r.words.data(), 0, r.words.bytes()));
    r.scratch = DeviceBuffer<unsigned char>(single_pass_scratch_bytes(0, Op::sum));
    CUDA_CHECK(cudaMemset(r.scratch.data(), 0, r.scratch.bytes()));  // once: each launch leaves it zeroed
    CUDA_CHECK(cudaDeviceSynchronize());  // zeroed before any other rank can store into it
    mine.push_back(r.words.data());
    s.local.push_back(std::move(r));
  }
  const std::vector<Flag*> table = every_rank_array(mine, devices, ranks, share);
  for (State::Rank& r : s.local) {
    CUDA_CHECK(cudaSetDevice(r.device));
    r.arrays = DeviceBuffer<Flag*>(table);
  }
}

LastBlockSum::~LastBlockSum() {
  for (const State::Rank& r : state_->local) {  // a slower rank's last block may still store into these arrays
    cudaSetDevice(r.device);
    cudaDeviceSynchronize();
  }
}

std::vector<ReductionLaunch> LastBlockSum::sum(const std::vector<const float*>& inputs,
                                               const std::vector<std::size_t>& counts,
                                               const std::vector<float*>& totals) {
  State& s = *state_;
  if (inputs.size() != s.local.size() || counts.size() != s.local.size() || totals.size() != s.local.size())
    throw std::invalid_argument("LastBlockSum::sum: one input, count and total per local rank");
  ++s.calls;
  std::vector<ReductionLaunch> launches;
  for (std::size_t i = 0; i < s.local.size(); ++i) {
    State::Rank& r = s.local[i];
    CUDA_CHECK(cudaSetDevice(r.device));
    launches.push_back(detail::launch_last_block_sum(inputs[i], counts[i], r.scratch.data(), r.arrays.data(),
                                                     s.ranks, r.rank, s.calls, totals[i]));
  }
  return launches;
}

}  // namespace pmpp::ch10::multi_gpu
