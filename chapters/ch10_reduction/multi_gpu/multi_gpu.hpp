/// @file multi_gpu.hpp
/// @brief Chapter 10 one level up: the sum across GPUs (its last level by NCCL or by peer reads) and
/// the all-reduce, by a copy-engine ring and by a fused ring. Plain C++ (no kernel syntax), so tests
/// and programs are ordinary .cpp files.
///
/// Conventions:
/// - a *rank* is one participant of a collective; normally one GPU, but several ranks may share one
///   GPU (each with its own buffers), which is how the rings are tested on a single GPU;
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
  PMPP_HOST_DEVICE std::size_t size() const { return end - begin; }
  PMPP_HOST_DEVICE bool empty() const { return end <= begin; }
};

/// Segment and chunk boundaries fall on multiples of this many floats (256 bytes), so that every
/// piece the ring moves starts 16-byte aligned and the kernels can use float4 loads.
inline constexpr std::size_t kAlignElements = 64;
/// Messages per segment and step of the copy-engine ring are capped here: each message needs two
/// events per rank, made once.
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
///
/// Both rings follow this plan: the copy-engine ring with a few large pieces and `slots` staging
/// slots shared by all of them, the fused ring with many small pieces (one or more per block of its
/// kernel) and `slots` staging slots for each piece (push_slot).
struct RingPlan {
  std::size_t n = 0;                 ///< floats in the vector
  int ranks = 1;                     ///< p
  std::size_t segment_elements = 0;  ///< floats per segment (the last segments may be shorter or empty)
  std::size_t chunk_elements = 0;    ///< the most floats one message carries
  int chunks = 0;                    ///< messages per segment and step (0 when there is nothing to move)
  /// Copy-engine ring: staging slots per rank, of chunk_elements floats each. Fused ring: staging slots
  /// per piece, each a segment's worth of floats per rank (push_slot).
  int slots = kDefaultSlots;

  /// 2(p-1): p-1 steps of reduce-scatter, then p-1 of all-gather.
  PMPP_HOST_DEVICE int steps() const { return 2 * (ranks - 1); }
  /// Messages each rank sends (and receives) in one all-reduce.
  int messages() const { return steps() * chunks; }
  /// The first messages(): those of the reduce-scatter, which land in staging and are added.
  int reduce_messages() const { return (ranks - 1) * chunks; }
  int step_of(int message) const { return message / chunks; }
  int piece_of(int message) const { return message % chunks; }
  /// True for the reduce-scatter steps (the receiver adds), false for the all-gather (it copies).
  PMPP_HOST_DEVICE bool reduces(int step) const { return step < ranks - 1; }
  //! [send_segment]
  /// The segment rank @p rank sends at @p step: (rank - step) mod p. In the reduce-scatter each rank
  /// passes on what it has just added to; after p-1 steps rank r holds the whole sum of segment
  /// (r + 1) mod p, and the all-gather passes the finished segments around the same way.
  PMPP_HOST_DEVICE int send_segment(int rank, int step) const { return ((rank - step) % ranks + ranks) % ranks; }
  //! [send_segment]
  /// The segment rank @p rank receives at @p step: what its left neighbour sends.
  PMPP_HOST_DEVICE int receive_segment(int rank, int step) const {
    return send_segment((rank + ranks - 1) % ranks, step);
  }
  /// Elements of segment @p s.
  PMPP_HOST_DEVICE Range segment(int s) const {
    const std::size_t first = at_most(n, static_cast<std::size_t>(s) * segment_elements);
    return {first, at_most(n, first + segment_elements)};
  }
  /// Elements of piece @p c of segment @p s (empty where a short segment has fewer pieces).
  PMPP_HOST_DEVICE Range piece(int s, int c) const {
    const Range whole = segment(s);
    const std::size_t first = at_most(whole.end, whole.begin + static_cast<std::size_t>(c) * chunk_elements);
    return {first, at_most(whole.end, first + chunk_elements)};
  }
  /// The receiver's staging slot for reduce-scatter message @p message.
  int slot_of(int message) const { return message % slots; }
  /// Floats of staging each rank needs (the copy-engine ring).
  std::size_t staging_elements() const { return static_cast<std::size_t>(slots) * chunk_elements; }
  /// The fused ring's staging slot for what a rank pushes at reduce-scatter step @p step: the slots of
  /// a piece are used in turn, so a sender may run `slots` steps ahead of its receiver's reads.
  PMPP_HOST_DEVICE int push_slot(int step) const { return step % slots; }

 private:
  PMPP_HOST_DEVICE static std::size_t at_most(std::size_t limit, std::size_t x) { return x < limit ? x : limit; }
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

/// Pieces per segment of the fused ring are capped here: each has two flags per rank, made once.
inline constexpr int kMaxFusedChunks = 8192;
/// Staging slots per piece of the fused ring when the caller leaves it to the plan: two, so that a
/// rank may push the next step's piece while its right neighbour still adds the previous one (fewer
/// where the reduce-scatter has fewer steps: p-1).
inline constexpr int kFusedSlots = 2;
/// The fused ring's plan for n floats over @p ranks ranks whose kernels run @p blocks blocks each:
/// pieces small enough to keep every block busy, and @p slots staging slots per piece (0: kFusedSlots;
/// at most p-1, and at least 2 where p > 2: one slot that is reused would deadlock the credits). With
/// @p chunk_elements = 0 each block takes one piece per step, or two or more where pieces would be
/// above 1 MiB, and pieces stay at least 16 KiB (a small vector leaves some blocks idle). Pieces are
/// rounded to kAlignElements and raised until a segment has at most kMaxFusedChunks. Throws
/// std::invalid_argument for ranks < 1, blocks < 1 or slots < 0.
RingPlan plan_fused_ring(std::size_t n, int ranks, int blocks, std::size_t chunk_elements = 0, int slots = 0);
/// Floats of staging each rank of the fused ring needs for vectors of up to @p capacity floats: its
/// slots, each one segment long (a slot holds the same piece of whichever segment arrives).
std::size_t fused_staging_elements(std::size_t capacity, int ranks, int slots = 0);

/// A flag of the fused ring: 64 bits in one GPU's memory, written by a neighbour, read by its owner.
using Flag = unsigned long long;
/// Values a flag can take within one all-reduce (enough for 2^19 ranks).
inline constexpr Flag kFlagsPerCall = Flag{1} << 20;
/// The value that says "finished @p steps steps of all-reduce number @p call (counted from 1) on this
/// piece": a `ready` flag, set by the left neighbour once its push of step steps-1 has landed, or a
/// `freed` flag, set by the right neighbour once it has read what this rank pushed at step steps-2.
/// Values only grow from one all-reduce to the next, so the flags are zeroed once, when they are
/// made, and never reset.
//! [progress_flag]
PMPP_HOST_DEVICE constexpr Flag progress_flag(std::uint64_t call, int steps) {
  return call * kFlagsPerCall + static_cast<Flag>(steps);
}
//! [progress_flag]

/// The fused ring run on the CPU in any order its flags allow, through each rank's staging slots.
/// Each (rank, piece) is a worker that takes the kernel's steps in order, each as a load (its own
/// piece, and what its left neighbour pushed into its staging) and a store (into its right
/// neighbour's staging or vector), and waits where the kernel waits on a flag; among the workers free
/// to go, a random one (from @p seed) goes next. @p calls all-reduces run in place, one after the
/// other on each rank, as kernels on one stream do. With @p credits false a sender does not wait for
/// the `freed` flag before it reuses a staging slot: the tests show that some order then breaks the
/// sum. Throws std::logic_error when no worker can go before all are done (a deadlock).
void simulate_fused_ring(const RingPlan& plan, std::vector<std::vector<float>>& vectors, std::uint64_t seed,
                         int calls = 1, bool credits = true);

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

/// The two hand-written rings: copies by the copy engines then an add kernel, or one fused kernel.
enum class RingKind { copy_engine, fused };

/// Bytes one GPU moves for each float that crosses a link in one step of a ring (it sends one float
/// and receives one), counting every access to its DRAM as if nothing stayed in L2.
struct StepBytes {
  double link_out = 0, link_in = 0, dram_read = 0, dram_write = 0;
  double dram() const { return dram_read + dram_write; }
};
/// A reduce-scatter step (@p reduces) or an all-gather step of @p ring. Copy-engine ring, reduce-scatter:
/// the copy reads the piece (4) and lands it in the receiver's staging (4 written), the add reads
/// staging and the vector (8) and writes the vector (4). Fused ring: the kernel reads its own piece
/// (4) and what its left neighbour pushed into its staging (4), and stores the sum into its right
/// neighbour's staging (4 written there; as many land here from the left). All-gather, both rings:
/// 4 read where the piece is, 4 written where it goes.
StepBytes step_bytes(RingKind ring, bool reduces);
/// DRAM bytes per float of the vector on one GPU over a whole all-reduce of @p ranks ranks, step by
/// step, each moving 1/p of the vector. The fused ring's first step reads no staging (4 bytes less)
/// and the step that finishes a segment writes it twice, here and into the right neighbour's vector
/// (4 more read from staging, 4 more written): 4 bytes more per segment float than p-1 steps of each
/// kind.
double all_reduce_dram_bytes_per_float(RingKind ring, int ranks);

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
  /// A hash of every value's bits and index: two ranks whose vectors hold the same bits have the same
  /// one (and two that differ almost surely not), so ranks compare vectors without sending them.
  std::uint64_t bits = 0;
  bool ok() const { return checked > 0 && mismatches == 0; }
  /// "PASS: 1048576 values" or "FAIL: 3 of 1048576 values differ; first: [17] got 2 want 3".
  std::string summary() const;
};

/// Copy rank @p rank's n floats back from @p device_data (current device) in blocks and compare each
/// with the sum over @p ranks ranks of all_reduce_input, computed on the CPU in double: bit for bit
/// for exact inputs, within (p-1) roundings otherwise. The CPU work runs on all cores.
VectorCheck check_all_reduced(const float* device_data, std::size_t n, std::uint64_t seed, int ranks, bool exact);

// ---- The copy-engine ring on the GPUs (ring.cpp, ring_schedule.cpp, add_into.cu) -----------------------

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

/// The copy-engine ring all-reduce: peer-to-peer copies (cudaMemcpyAsync from each rank to its right
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

// ---- Memory one GPU reads on another (peer_access.cpp) ------------------------------------------------

/// Let kernels and copies on device @p from reach device @p to's memory (cudaDeviceEnablePeerAccess),
/// once per ordered pair in this process. True when they can: the same device, or peer access on.
/// False where CUDA says the two cannot reach each other (copies then still work, through the host).
bool enable_peer_access(int from, int to);

/// How this process reaches every rank's device memory: one pointer per local rank in (each the start
/// of a cudaMalloc allocation on that rank's device), one pointer per rank out, in rank order, as this
/// process addresses them. Every process calls it at the same point (across processes it exchanges
/// CUDA IPC handles; the mappings last as long as what made them). An empty one: every rank is in this
/// process, and the pointers are the ones passed in.
using ShareMemory = std::function<std::vector<void*>(const std::vector<void*>& local)>;

// ---- The fused ring (fused_ring.cpp, fused_ring.cu) ----------------------------------------------------

/// Options of the fused ring.
struct FusedRingOptions {
  std::size_t chunk_elements = 0;  ///< floats per piece; 0: plan_fused_ring's choice
  /// Blocks each rank's kernel runs; 0: as many as stay resident on the smallest of this process's GPUs,
  /// shared among the ranks on it. Across processes every rank must pass the same value.
  int blocks = 0;
  int slots = 0;  ///< staging slots per piece; 0: kFusedSlots (plan_fused_ring keeps it from 2 to p-1)
};

/// Blocks of the fused ring's kernel that stay resident together on device @p device when
/// @p ranks_on_device ranks share it (each rank's blocks wait for its neighbours', so all must run at once).
int fused_ring_blocks(int device, int ranks_on_device);

/// The fused ring all-reduce over the vectors of a copy-engine Ring (which must outlive it): one kernel
/// per GPU runs every step. In the reduce-scatter a rank adds its own piece to what its left
/// neighbour pushed into its staging and stores the sum straight into its right neighbour's staging
/// (SM stores through a peer pointer); in the all-gather it stores each finished piece into its right
/// neighbour's vector. Every read is of the GPU's own memory; only stores cross the links.
/// Neighbours tell each other how far they are (`ready`) and which staging slot is free again
/// (`freed`) with flags in GPU memory, so no host takes part once the kernels are launched. Like
/// Ring::all_reduce, it runs on each device's default stream.
class FusedRing {
 public:
  /// @p share reaches the other processes' ranks (see ShareMemory); empty: every rank is in this
  /// process. Throws std::runtime_error when a rank's GPU cannot reach a neighbour's memory.
  explicit FusedRing(Ring& ring, FusedRingOptions options = {}, const ShareMemory& share = {});
  ~FusedRing();
  FusedRing(const FusedRing&) = delete;
  FusedRing& operator=(const FusedRing&) = delete;

  int ranks() const;
  /// Blocks each rank's kernel runs.
  int blocks() const;
  /// The plan all_reduce(n) follows.
  RingPlan plan(std::size_t n) const;
  /// In-place sum of the first n floats of every rank's vector; enqueued, not waited for.
  void all_reduce(std::size_t n);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// ---- The last level of the sum across GPUs by peer reads (peer_sum.cpp, peer_sum.cu) -------------------

/// The sum across GPUs without a library call at the end: each rank publishes its partial sum in its
/// own memory, tagged with the call's number, and reads every rank's (p-1 reads over the links) and
/// adds them in rank order, so that every rank adds the same floats in the same order and ends with
/// the same bits. Runs on each local rank's device's default stream.
class PeerSum {
 public:
  /// Rank local_ranks[i] of @p ranks on devices[i]; @p share: see ShareMemory. Throws
  /// std::runtime_error where one rank's GPU cannot read another's memory.
  PeerSum(const std::vector<int>& local_ranks, const std::vector<int>& devices, int ranks, const ShareMemory& share);
  ~PeerSum();
  PeerSum(const PeerSum&) = delete;
  PeerSum& operator=(const PeerSum&) = delete;

  /// Where local rank i's reduction writes its partial sum (one float on its device).
  float* partial(std::size_t i);
  /// Enqueue, on every local rank, the kernel that publishes its partial sum and adds every rank's,
  /// after the reduction that wrote it.
  void combine();
  /// Local rank i's total: one float on its device, written by combine().
  const float* total(std::size_t i) const;

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
};
/// Ask CUDA about copies from device @p from to device @p to.
PeerLink query_link(int from, int to);
/// The device's PCI address ("0000:1B:00.0"), which names it the way nvidia-smi does.
std::string pci_bus_id(int device);

/// The bandwidth each local rank's link to its right neighbour delivered (GB/s, median of
/// @p repetitions copies of @p bytes). By the copy engines, with the copy-engine ring's own copies:
/// `alone`, one rank copies at a time, the others idle; `together`, every rank copies at once, as in
/// the ring (each GPU sends and receives at the same time, and GPUs sharing a switch or a memory share
/// its bandwidth). By kernels, every rank at once: `loads`, each rank's SMs read its right neighbour's
/// vector, and `stores`, each rank's SMs write into it (as the fused ring pushes into its right one).
/// @p barrier lines up the processes (nothing to do in one process) and runs on every rank's turn.
struct LinkBandwidth {
  std::vector<double> alone, together, loads, stores;  ///< [index into ring.local_ranks()]
};
LinkBandwidth measure_links(Ring& ring, std::size_t bytes, int repetitions, const std::function<void()>& barrier);

/// Enqueue dst[i] = src[i] for i < count on @p stream of the current device, by SM loads and stores
/// (link_copy.cu): how measure_links drives a link with kernels. Either pointer may be a peer's.
void sm_copy(float* dst, const float* src, std::size_t count, Stream stream);

/// Enqueue dst[i] += src[i] for i < count on @p stream of the current device: the reduce kernel of the
/// reduce-scatter (add_into.cu). Any alignment; float4 loads where both pointers allow them.
void add_into(float* dst, const float* src, std::size_t count, Stream stream);

}  // namespace pmpp::ch10::multi_gpu
