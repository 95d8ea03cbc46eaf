/// @file multi_gpu.hpp
/// @brief Chapter 10 one level up: the sum across GPUs and the all-reduce ring. Plain C++ (no kernel
/// syntax), so tests and programs are ordinary .cpp files.
///
/// Conventions:
/// - a *rank* is one participant of a collective; normally one GPU, but several ranks may share one
///   GPU (each with its own buffers and streams), which is how the ring is tested on a single GPU;
/// - the vector every rank holds has n floats; the all-reduce leaves the element-wise sum on every
///   rank, in place;
/// - sizes and indices are 64-bit (a 4 GiB vector has 2^30 floats).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/math.hpp"

struct CUstream_st;  // cudaStream_t, declared here so that this header needs no CUDA header

namespace pmpp::ch10::multi_gpu {

/// A CUDA stream (cudaStream_t) in plain C++.
using Stream = CUstream_st*;

// ---- The ring's plan (ring_plan.cpp) ---------------------------------------------------------------

/// Elements [begin, end) of a vector.
struct Range {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
};

/// Segment and chunk boundaries fall on multiples of this many floats (256 bytes), so that every
/// piece the ring moves starts 16-byte aligned and the reduce kernel can use float4 loads.
inline constexpr std::size_t kAlignElements = 64;
/// Messages per segment and step are capped here: each message needs two events per rank, made once.
inline constexpr int kMaxChunks = 64;
/// Staging slots per rank: how many messages a sender may have in flight before the receiver's
/// reduce has freed the slot it wants.
inline constexpr int kDefaultSlots = 4;

/// How the ring cuts an n-float all-reduce over p ranks into messages.
///
/// The vector is cut into p *segments*, one per rank; each is cut into `chunks` *pieces* of at most
/// `chunk_elements` floats. Step t (0 <= t < 2(p-1)) moves one segment from every rank r to rank r+1
/// (mod p), piece by piece: in the first p-1 steps (reduce-scatter) the receiver adds the piece into
/// its own copy, in the last p-1 (all-gather) it overwrites its copy with the finished sum. A
/// *message* is one piece of one step; they are numbered m = step * chunks + piece.
struct RingPlan {
  std::size_t n = 0;                 ///< floats in the vector
  int ranks = 1;                     ///< p
  std::size_t segment_elements = 0;  ///< floats per segment (the last segments may be shorter or empty)
  std::size_t chunk_elements = 0;    ///< the most floats one message carries
  int chunks = 0;                    ///< messages per segment and step (0 when there is nothing to move)
  int slots = kDefaultSlots;         ///< staging slots per rank, of chunk_elements floats each

  /// 2(p-1): p-1 steps of reduce-scatter, then p-1 of all-gather.
  int steps() const { return 2 * (ranks - 1); }
  /// Messages each rank sends (and receives) in one all-reduce.
  int messages() const { return steps() * chunks; }
  /// The first messages(): those of the reduce-scatter, which land in staging and are added.
  int reduce_messages() const { return (ranks - 1) * chunks; }
  int step_of(int message) const { return message / chunks; }
  int piece_of(int message) const { return message % chunks; }
  /// True for the reduce-scatter steps (the receiver adds), false for the all-gather (it copies).
  bool reduces(int step) const { return step < ranks - 1; }
  /// The segment rank @p rank sends at @p step: (rank - step) mod p. In the reduce-scatter each rank
  /// passes on what it has just added to; after p-1 steps rank r holds the whole sum of segment
  /// (r + 1) mod p, and the all-gather passes the finished segments around the same way.
  int send_segment(int rank, int step) const;
  /// The segment rank @p rank receives at @p step: what its left neighbour sends.
  int receive_segment(int rank, int step) const { return send_segment((rank + ranks - 1) % ranks, step); }
  /// Elements of segment @p s.
  Range segment(int s) const;
  /// Elements of piece @p c of segment @p s (empty where a short segment has fewer pieces).
  Range piece(int s, int c) const;
  /// The receiver's staging slot for reduce-scatter message @p message.
  int slot_of(int message) const { return message % slots; }
  /// Floats of staging each rank needs.
  std::size_t staging_elements() const { return static_cast<std::size_t>(slots) * chunk_elements; }
};

/// Floats per message when the caller leaves it to the plan: about 8 messages per segment and step,
/// each from 4 MiB (every message has a fixed cost, whatever its size) to 16 MiB (less staging memory); plan_ring
/// raises it where a segment would need more than kMaxChunks messages.
std::size_t default_chunk_elements(std::size_t n, int ranks);
/// The plan for n floats over @p ranks ranks with messages of about @p chunk_elements floats (0: the
/// default), rounded to kAlignElements and raised until a segment needs at most kMaxChunks messages.
/// Throws std::invalid_argument for ranks < 1 or slots < 1.
RingPlan plan_ring(std::size_t n, int ranks, std::size_t chunk_elements = 0, int slots = kDefaultSlots);

/// Run @p plan on the CPU, message by message in the order each GPU runs them, through each rank's
/// staging slots: vectors[r] (n floats each, p of them) end as the element-wise sum, in float.
/// The GPU ring follows the same plan; the tests check the plan with this for many p and n.
void simulate_ring(const RingPlan& plan, std::vector<std::vector<float>>& vectors);

// ---- The cost model (cost_model.cpp) ---------------------------------------------------------------

/// Bytes each rank sends (and receives) in a ring all-reduce of @p vector_bytes over @p ranks:
/// 2(p-1)/p of the vector: every segment but its own passes through it twice.
double ring_bytes_per_rank(double vector_bytes, int ranks);
/// Bytes rank @p rank sends under @p plan, piece by piece (the formula's value, up to alignment).
std::size_t planned_bytes_sent(const RingPlan& plan, int rank);
/// Algorithm bandwidth as the NCCL performance tests define it: the vector's bytes over the time.
double algorithm_bandwidth(double vector_bytes, double ms);
/// Bus bandwidth as the NCCL performance tests define it for all-reduce: algorithm bandwidth times
/// 2(p-1)/p, the rate at which each rank's link carried data. Comparable across rank counts, and
/// directly with the link bandwidth.
double bus_bandwidth(double algorithm_gbps, int ranks);
/// The ring's time if every link carried @p link_gbps (GB/s each way, all links at once) and nothing
/// else took time: 2(p-1)/p * bytes / bandwidth.
double predicted_ring_ms(double vector_bytes, int ranks, double link_gbps);

// ---- Inputs (inputs.cpp, fill_inputs.cu) --------------------------------------------------------------

/// A 64-bit mix of its input (splitmix64's finalizer): inputs depend on (seed, rank, element) only,
/// so the GPU writes them and the CPU recomputes them without either storing the other's.
PMPP_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Element @p i of rank @p rank's vector. exact: an integer in [-4, 4], so any sum over up to 2^21
/// ranks is exact in float in any order; floats: a multiple of 2^-23 in [-1, 1).
PMPP_HOST_DEVICE inline float all_reduce_input(std::uint64_t seed, int rank, std::size_t i, bool exact) {
  const std::uint64_t h = mix64(mix64(seed ^ (0xA0761D6478BD642Full * static_cast<std::uint64_t>(rank + 1))) + i);
  if (exact) return static_cast<float>(static_cast<int>(h % 9) - 4);
  return static_cast<float>(static_cast<double>(h >> 40) * (1.0 / 8388608.0) - 1.0);
}

/// Fill @p count floats at @p data (device memory of the current device) with rank @p rank's inputs,
/// elements 0 .. count-1, on the default stream.
void fill_inputs(float* data, std::size_t count, std::uint64_t seed, int rank, bool exact);

/// The outcome of checking one rank's all-reduced vector.
struct VectorCheck {
  std::size_t checked = 0, mismatches = 0;
  double worst_error = 0;  ///< NaN when a NaN was found
  std::string first_mismatch;
  bool ok() const { return checked > 0 && mismatches == 0; }
  /// "PASS: 1048576 values" or "FAIL: 3 of 1048576 values differ; first: [17] got 2 want 3".
  std::string summary() const;
};

/// Copy rank @p rank's n floats back from @p device_data (current device) in blocks and compare each
/// with the sum over @p ranks ranks of all_reduce_input, computed on the CPU in double: bit for bit
/// for exact inputs, within (p-1) roundings otherwise. The CPU work runs on all cores.
VectorCheck check_all_reduced(const float* device_data, std::size_t n, std::uint64_t seed, int ranks, bool exact);

// ---- The ring on the GPUs (ring.cpp, ring_schedule.cpp, add_into.cu) -----------------------------------

/// How a rank's host talks to its neighbours' hosts when each rank runs in its own process (MPI).
/// A Ring in one process needs none.
class Messenger {
 public:
  virtual ~Messenger() = default;
  /// Send @p bytes to rank @p to under @p tag without waiting for the receiver (the data is copied).
  virtual void send(int to, int tag, const void* data, std::size_t bytes) = 0;
  /// Receive exactly @p bytes from rank @p from under @p tag; blocks until they are there. Messages
  /// between two ranks under one tag arrive in the order they were sent.
  virtual void receive(int from, int tag, void* data, std::size_t bytes) = 0;
  /// Wait until every send has left.
  virtual void flush() = 0;
};

/// Options of the hand-written ring.
struct RingOptions {
  std::size_t chunk_elements = 0;  ///< floats per message; 0: default_chunk_elements
  int slots = kDefaultSlots;       ///< staging slots per rank
};

/// The hand-written ring all-reduce: peer-to-peer copies (cudaMemcpyAsync from each rank to its right
/// neighbour) and a reduce kernel, reduce-scatter then all-gather, in messages that overlap (while one
/// piece is on the link, the previous one is being added). It owns every local rank's vector.
///
/// Work is ordered with events, never by the host waiting: each message's copy waits for the piece to
/// be ready on the sender and for the receiver's staging slot to be free; each reduce waits for the
/// copy. Across processes the events are shared with CUDA IPC and the Messenger tells a neighbour when
/// an event it will wait for has been recorded. From the outside, all_reduce() behaves like work on
/// each device's default stream: it starts after what was enqueued there and what is enqueued there
/// afterwards waits for it.
class Ring {
 public:
  /// Every rank in this process: rank r runs on devices[r] (several ranks may share a device).
  Ring(std::vector<int> devices, std::size_t capacity, RingOptions options = {});
  /// One rank per process: this process is rank @p rank of @p ranks, on @p device; @p messenger
  /// reaches the other processes (buffers and events are exchanged with the neighbours here).
  Ring(int rank, int ranks, int device, std::size_t capacity, RingOptions options, Messenger& messenger);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  int ranks() const;
  /// The ranks this process drives.
  const std::vector<int>& local_ranks() const;
  int device(int rank) const;
  /// Local rank @p rank's vector: capacity floats on its device.
  float* vector(int rank);
  std::size_t capacity() const;
  /// The plan all_reduce(n) follows.
  RingPlan plan(std::size_t n) const;
  /// In-place sum of the first n floats of every rank's vector; enqueued, not waited for.
  void all_reduce(std::size_t n);
  /// Local rank @p rank's right neighbour's vector, as this process addresses it (the same pointer in
  /// one process, a CUDA IPC mapping across processes): where its messages go.
  float* right_vector(int rank);
  /// The stream on which local rank @p rank's copies to the right run (links.cpp times them there).
  Stream send_stream(int rank);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- Links between GPUs (links.cpp) -----------------------------------------------------------------------

/// What CUDA says about copies from one GPU to another.
struct PeerLink {
  int from = 0, to = 0;         ///< device numbers
  bool same_device = false;     ///< two ranks on one GPU: "copies" stay in its memory
  bool peer_access = false;     ///< cudaDeviceCanAccessPeer: direct copies, without host memory
  bool native_atomics = false;  ///< atomics over the link: NVLink has them, PCIe peers usually not
  int performance_rank = 0;     ///< cudaDevP2PAttrPerformanceRank: a relative rank, lower is faster
  /// "same GPU", "peer access, native atomics (NVLink-class), rank 0", "no peer access: through host memory".
  std::string describe() const;
};
/// Ask CUDA about copies from device @p from to device @p to.
PeerLink query_link(int from, int to);
/// The device's PCI address ("0000:1B:00.0"), which names it the way nvidia-smi does.
std::string pci_bus_id(int device);

/// The copy bandwidth each local rank's link to its right neighbour delivered (GB/s), measured with
/// the ring's own copies of @p bytes (median of @p repetitions). `alone`: one rank copies at a time,
/// the others idle; `together`: every rank copies at once, as in the ring (each GPU sends and
/// receives at the same time, and GPUs sharing a switch or a memory share its bandwidth).
/// @p barrier lines up the processes (nothing to do in one process) and runs on every rank's turn.
struct LinkBandwidth {
  std::vector<double> alone, together;  ///< [index into ring.local_ranks()]
};
LinkBandwidth measure_links(Ring& ring, std::size_t bytes, int repetitions, const std::function<void()>& barrier);

/// Enqueue dst[i] += src[i] for i < count on @p stream of the current device: the reduce kernel of the
/// reduce-scatter (add_into.cu). Any alignment; float4 loads where both pointers allow them.
void add_into(float* dst, const float* src, std::size_t count, Stream stream);

}  // namespace pmpp::ch10::multi_gpu
