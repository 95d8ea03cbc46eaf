// The sum across GPUs' last level by peer reads: each rank's slot, every rank's slot as this process
// addresses it, and one combine kernel per GPU for the ranks on it. The kernel is in peer_sum.cu.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "ch10_reduction/multi_gpu/peer_kernels.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

namespace pmpp::ch10::multi_gpu {

struct PeerSum::State {
  int ranks = 1;
  std::uint64_t calls = 0;  ///< combines so far: the slots' words carry the count
  std::vector<DeviceBuffer<detail::PeerSlot>> slots;  ///< [local rank]: its own slot
  /// The ranks on one GPU of this process, combined by one kernel so that none waits for a rank queued
  /// behind it on the same stream.
  struct Gpu {
    int device = 0, count = 0;
    DeviceBuffer<int> ranks;                     ///< the ranks on it
    DeviceBuffer<detail::PeerSlot*> all_slots;  ///< every rank's slot, as this process addresses it
  };
  std::vector<Gpu> gpus;

  ~State() {
    for (const Gpu& gpu : gpus) {  // a slower rank may still be reading these slots
      cudaSetDevice(gpu.device);
      cudaDeviceSynchronize();
    }
  }
};

PeerSum::PeerSum(const std::vector<int>& local_ranks, const std::vector<int>& devices, int ranks,
                 const ShareMemory& share)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  if (local_ranks.size() != devices.size() || local_ranks.empty())
    throw std::invalid_argument("PeerSum: one device per local rank");
  s.ranks = ranks;
  std::vector<void*> mine;
  for (int device : devices) {
    CUDA_CHECK(cudaSetDevice(device));
    s.slots.emplace_back(1);
    CUDA_CHECK(cudaMemset(s.slots.back().data(), 0, sizeof(detail::PeerSlot)));
    CUDA_CHECK(cudaDeviceSynchronize());  // zeroed before any other rank can read it
    mine.push_back(s.slots.back().data());
  }
  const std::vector<void*> all = share ? share(mine) : mine;
  if (static_cast<int>(all.size()) != ranks) throw std::logic_error("PeerSum: every rank's slot is needed");
  if (!share) {
    // One process: every GPU reads every other's slot.
    for (int from : devices)
      for (int to : devices)
        if (!enable_peer_access(from, to))
          throw std::runtime_error("GPU " + std::to_string(from) + " cannot reach GPU " + std::to_string(to) +
                                   "'s memory (no peer access)");
  }
  std::vector<detail::PeerSlot*> table;
  for (void* slot : all) table.push_back(static_cast<detail::PeerSlot*>(slot));
  std::map<int, std::vector<int>> ranks_on;  // device -> its local ranks
  for (std::size_t i = 0; i < devices.size(); ++i) ranks_on[devices[i]].push_back(local_ranks[i]);
  for (const auto& [device, on_it] : ranks_on) {
    CUDA_CHECK(cudaSetDevice(device));
    s.gpus.push_back({device, static_cast<int>(on_it.size()), DeviceBuffer<int>(on_it),
                      DeviceBuffer<detail::PeerSlot*>(table)});
  }
}

PeerSum::~PeerSum() = default;

namespace {
// A field of a slot in device memory, by its offset (the host never dereferences the device pointer).
template <class T>
T* field(detail::PeerSlot* slot, std::size_t offset) {
  return reinterpret_cast<T*>(reinterpret_cast<char*>(slot) + offset);
}
}  // namespace

float* PeerSum::partial(std::size_t i) {
  return field<float>(state_->slots.at(i).data(), offsetof(detail::PeerSlot, partial));
}
const float* PeerSum::total(std::size_t i) const {
  return field<float>(const_cast<detail::PeerSlot*>(state_->slots.at(i).data()), offsetof(detail::PeerSlot, total));
}

void PeerSum::combine() {
  State& s = *state_;
  ++s.calls;
  for (const State::Gpu& gpu : s.gpus) {
    CUDA_CHECK(cudaSetDevice(gpu.device));
    detail::launch_peer_sum(gpu.all_slots.data(), s.ranks, gpu.ranks.data(), gpu.count, s.calls);
  }
}

}  // namespace pmpp::ch10::multi_gpu
