// The links between GPUs: what CUDA says about them, and what they deliver to the copy-engine ring's
// own copies and to kernels' loads and stores.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

PeerLink query_link(int from, int to) {
  PeerLink link;
  link.from = from;
  link.to = to;
  link.same_device = from == to;
  if (link.same_device) return link;
  int value = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&value, from, to));
  link.peer_access = value != 0;
  if (!link.peer_access) return link;
  CUDA_CHECK(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, from, to));
  link.native_atomics = value != 0;
  CUDA_CHECK(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, from, to));
  link.performance_rank = value;
  return link;
}

std::string pci_bus_id(int device) {
  char id[32] = "";
  CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, device));
  return id;
}

namespace {
// Who moves the bytes between a rank and its right neighbour.
enum class Driver { copy_engine, sm_loads, sm_stores };

// Times one copy per rank in `ranks` (indices into ring.local_ranks()), all enqueued before any is
// waited for, each between two events on the rank's own send stream.
std::vector<double> time_copies(Ring& ring, const std::vector<std::size_t>& ranks, std::size_t bytes,
                                Driver driver = Driver::copy_engine) {
  const std::vector<int>& local = ring.local_ranks();
  std::vector<cudaEvent_t> start(ranks.size()), stop(ranks.size());
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const int rank = local[ranks[k]];
    CUDA_CHECK(cudaSetDevice(ring.device(rank)));
    CUDA_CHECK(cudaEventCreate(&start[k]));
    CUDA_CHECK(cudaEventCreate(&stop[k]));
    CUDA_CHECK(cudaEventRecord(start[k], ring.send_stream(rank)));
    const std::size_t count = bytes / sizeof(float);
    if (driver == Driver::copy_engine)
      CUDA_CHECK(cudaMemcpyAsync(ring.right_vector(rank), ring.vector(rank), bytes, cudaMemcpyDefault,
                                 ring.send_stream(rank)));
    else if (driver == Driver::sm_loads)  // the bytes come from the right neighbour, pulled by this GPU
      sm_copy(ring.vector(rank), ring.right_vector(rank), count, ring.send_stream(rank));
    else  // the bytes go to the right neighbour, pushed by this GPU
      sm_copy(ring.right_vector(rank), ring.vector(rank), count, ring.send_stream(rank));
    CUDA_CHECK(cudaEventRecord(stop[k], ring.send_stream(rank)));
  }
  std::vector<double> gbps(ranks.size());
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    CUDA_CHECK(cudaEventSynchronize(stop[k]));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start[k], stop[k]));
    gbps[k] = ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0.0;
    cudaEventDestroy(start[k]);
    cudaEventDestroy(stop[k]);
  }
  return gbps;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}
}  // namespace

LinkBandwidth measure_links(Ring& ring, std::size_t bytes, int repetitions, const std::function<void()>& barrier) {
  const std::size_t local = ring.local_ranks().size();
  bytes = std::min(bytes, ring.capacity() * sizeof(float));
  LinkBandwidth result;
  result.alone.assign(local, 0.0);
  result.together.assign(local, 0.0);
  result.loads.assign(local, 0.0);
  result.stores.assign(local, 0.0);
  if (ring.ranks() < 2 || bytes == 0) return result;
  repetitions = std::max(repetitions, 1);
  std::vector<std::vector<double>> alone(local), together(local), loads(local), stores(local);
  // The ring's streams do not wait for the default stream: finish whatever the caller enqueued on
  // these GPUs (filling the vectors, say) before a copy reads or overwrites them, and so that nothing
  // else runs during the timed copies. The barrier then waits for the other processes' GPUs.
  for (int rank : ring.local_ranks()) {
    CUDA_CHECK(cudaSetDevice(ring.device(rank)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  // One warm-up copy per rank: the first copy over a link sets up its mappings.
  barrier();
  for (std::size_t k = 0; k < local; ++k) time_copies(ring, {k}, bytes);
  for (int rep = 0; rep < repetitions; ++rep) {
    // Alone: rank by rank around the ring, every process waiting for its turn.
    for (int rank = 0; rank < ring.ranks(); ++rank) {
      barrier();
      for (std::size_t k = 0; k < local; ++k)
        if (ring.local_ranks()[k] == rank) alone[k].push_back(time_copies(ring, {k}, bytes)[0]);
    }
    // Together: every rank at once, by each driver.
    std::vector<std::size_t> all(local);
    for (std::size_t k = 0; k < local; ++k) all[k] = k;
    for (auto [driver, into] : {std::pair{Driver::copy_engine, &together}, std::pair{Driver::sm_loads, &loads},
                                std::pair{Driver::sm_stores, &stores}}) {
      barrier();
      const std::vector<double> gbps = time_copies(ring, all, bytes, driver);
      for (std::size_t k = 0; k < local; ++k) (*into)[k].push_back(gbps[k]);
    }
  }
  for (std::size_t k = 0; k < local; ++k) {
    result.alone[k] = median(alone[k]);
    result.together[k] = median(together[k]);
    result.loads[k] = median(loads[k]);
    result.stores[k] = median(stores[k]);
  }
  barrier();
  return result;
}

}  // namespace pmpp::ch10::multi_gpu
