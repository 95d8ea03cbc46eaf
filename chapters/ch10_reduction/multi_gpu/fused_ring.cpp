// The fused ring's setup: each rank's flags (its mailbox) and staging, every rank's vector, staging and
// mailbox as this process addresses them, the blocks every rank runs, and one kernel per GPU for the
// ranks on it. The kernel is in fused_ring.cu.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "ch10_reduction/multi_gpu/peer_kernels.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_buffer.hpp"

namespace pmpp::ch10::multi_gpu {

struct FusedRing::State {
  int ranks = 1, blocks = 1, slots = 0;
  std::size_t capacity = 0, chunk_elements = 0;
  std::uint64_t calls = 0;  ///< all-reduces so far: the flags count them
  std::vector<DeviceBuffer<Flag>> mailboxes;  ///< [local rank]: ready flags, then freed flags
  std::vector<DeviceBuffer<float>> staging;   ///< [local rank]: where its left neighbour pushes
  /// The ranks on one GPU of this process, launched as one kernel (a row of blocks each), so that no
  /// rank's blocks wait for a kernel queued behind them on the same GPU.
  struct Gpu {
    int device = 0, ranks = 0;
    DeviceBuffer<detail::FusedRankView> views;
  };
  std::vector<Gpu> gpus;

  ~State() {
    // The neighbours' last pushes and flags may still be on their way into this memory.
    for (const Gpu& gpu : gpus) {
      cudaSetDevice(gpu.device);
      cudaDeviceSynchronize();
    }
  }
};

FusedRing::FusedRing(Ring& ring, FusedRingOptions options, const ShareMemory& share)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.ranks = ring.ranks();
  s.capacity = ring.capacity();
  s.chunk_elements = options.chunk_elements;
  s.slots = options.slots;
  const std::vector<int>& local = ring.local_ranks();
  const int p = s.ranks;
  // Every slot one segment of the largest vector long: a smaller vector's pieces fit the same slots.
  const std::size_t slot_stride = plan_fused_ring(s.capacity, p, 1, 0, s.slots).segment_elements;
  const std::size_t staging_elements = fused_staging_elements(s.capacity, p, s.slots);

  // Mailboxes zeroed once: flag values only grow (progress_flag), so they are never reset. Staging
  // needs no zeros: every float is written by a push before the ready flag lets anyone read it.
  std::vector<void*> my_vectors, my_mailboxes, my_staging;
  for (int r : local) {
    CUDA_CHECK(cudaSetDevice(ring.device(r)));
    s.mailboxes.emplace_back(2 * static_cast<std::size_t>(kMaxFusedChunks));
    s.staging.emplace_back(std::max<std::size_t>(1, staging_elements));
    CUDA_CHECK(cudaMemset(s.mailboxes.back().data(), 0, s.mailboxes.back().bytes()));
    CUDA_CHECK(cudaDeviceSynchronize());  // the zeros are in place before any neighbour can write a flag
    my_vectors.push_back(ring.vector(r));
    my_mailboxes.push_back(s.mailboxes.back().data());
    my_staging.push_back(s.staging.back().data());
  }
  // Every rank's vector, staging and mailbox as this process addresses them: the pointers themselves
  // in one process, CUDA IPC mappings (opened here, once per run) across processes.
  const std::vector<void*> vectors = share ? share(my_vectors) : my_vectors;
  const std::vector<void*> stagings = share ? share(my_staging) : my_staging;
  const std::vector<void*> mailboxes = share ? share(my_mailboxes) : my_mailboxes;
  if (static_cast<int>(vectors.size()) != p || static_cast<int>(stagings.size()) != p ||
      static_cast<int>(mailboxes.size()) != p)
    throw std::logic_error("the fused ring needs every rank's vector, staging and flags");
  if (!share) {
    // One process: each GPU stores into its right neighbour's vector and staging and writes both
    // neighbours' flags.
    for (int r = 0; r < p; ++r)
      for (int neighbour : {(r + p - 1) % p, (r + 1) % p})
        if (!enable_peer_access(ring.device(r), ring.device(neighbour)))
          throw std::runtime_error("GPU " + std::to_string(ring.device(r)) + " cannot reach GPU " +
                                   std::to_string(ring.device(neighbour)) + "'s memory (no peer access)");
  }

  std::map<int, std::vector<int>> ranks_on;  // device -> its local ranks, in rank order
  for (int r : local) ranks_on[ring.device(r)].push_back(r);
  s.blocks = options.blocks;
  if (s.blocks == 0) {
    s.blocks = fused_ring_blocks(ranks_on.begin()->first, static_cast<int>(ranks_on.begin()->second.size()));
    for (const auto& [device, on_it] : ranks_on)
      s.blocks = std::min(s.blocks, fused_ring_blocks(device, static_cast<int>(on_it.size())));
  }

  const auto flags = [&](int r) { return static_cast<Flag*>(mailboxes[static_cast<std::size_t>(r)]); };
  const auto floats = [](const std::vector<void*>& all, int r) {
    return static_cast<float*>(all[static_cast<std::size_t>(r)]);
  };
  for (const auto& [device, on_it] : ranks_on) {
    std::vector<detail::FusedRankView> views;
    for (int r : on_it) {
      const int left = (r + p - 1) % p, right = (r + 1) % p;
      detail::FusedRankView v;
      v.vector = ring.vector(r);
      v.staging = floats(stagings, r);
      v.right_vector = floats(vectors, right);
      v.right_staging = floats(stagings, right);
      v.slot_stride = slot_stride;
      v.ready = flags(r);
      v.freed = flags(r) + kMaxFusedChunks;
      v.right_ready = flags(right);
      v.left_freed = flags(left) + kMaxFusedChunks;
      v.rank = r;
      views.push_back(v);
    }
    CUDA_CHECK(cudaSetDevice(device));
    s.gpus.push_back({device, static_cast<int>(on_it.size()), DeviceBuffer<detail::FusedRankView>(views)});
  }
}

FusedRing::~FusedRing() = default;

int FusedRing::ranks() const { return state_->ranks; }
int FusedRing::blocks() const { return state_->blocks; }

RingPlan FusedRing::plan(std::size_t n) const {
  if (n > state_->capacity)
    throw std::invalid_argument("all-reduce of " + std::to_string(n) + " floats in a ring made for " +
                                std::to_string(state_->capacity));
  return plan_fused_ring(n, state_->ranks, state_->blocks, state_->chunk_elements, state_->slots);
}

void FusedRing::all_reduce(std::size_t n) {
  State& s = *state_;
  const RingPlan plan = this->plan(n);
  if (plan.steps() == 0 || plan.chunks == 0) return;  // one rank, or nothing to add
  ++s.calls;
  for (const State::Gpu& gpu : s.gpus) {
    CUDA_CHECK(cudaSetDevice(gpu.device));
    detail::launch_fused_ring(gpu.views.data(), gpu.ranks, s.blocks, plan, s.calls);
  }
}

}  // namespace pmpp::ch10::multi_gpu
