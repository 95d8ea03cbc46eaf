// The ring's plan: how an n-float all-reduce over p ranks is cut into segments, pieces and messages,
// which segment each rank sends at each step, and the same plan run on the CPU.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
std::size_t align_up(std::size_t x, std::size_t to) { return ceil_div(x, to) * to; }

// At least this many floats per message when the plan chooses (4 MiB). Every message has a fixed cost
// besides its bytes: a wait, a copy and an event on the sender, a wait, a launch and an event on the
// receiver. Measured on two H200s linked by NVLink (ch10_multi_gpu --chunk-kib), it came to 13-17 us
// a message, whatever its size from 256 KiB to 1 MiB: 1 MiB messages left the ring at a quarter of
// NCCL's speed for 8 to 64 MiB vectors, 4 MiB messages brought it level (0.93-1.00 of NCCL's).
constexpr std::size_t kMinDefaultChunk = std::size_t{1} << 20;
// At most this many floats per message when the plan chooses (16 MiB), unless a segment would then need
// more than kMaxChunks messages: staging holds kDefaultSlots messages on every rank.
constexpr std::size_t kMaxDefaultChunk = std::size_t{1} << 22;
// About this many messages per segment and step when the plan chooses: the link carries one piece
// while the receiver adds the previous one, so only the first piece of a step waits for nothing.
constexpr std::size_t kTargetChunks = 8;
}  // namespace

//! [send_segment]
int RingPlan::send_segment(int rank, int step) const { return ((rank - step) % ranks + ranks) % ranks; }
//! [send_segment]

Range RingPlan::segment(int s) const {
  const std::size_t first = std::min(n, static_cast<std::size_t>(s) * segment_elements);
  return {first, std::min(n, first + segment_elements)};
}

Range RingPlan::piece(int s, int c) const {
  const Range whole = segment(s);
  const std::size_t first = std::min(whole.end, whole.begin + static_cast<std::size_t>(c) * chunk_elements);
  return {first, std::min(whole.end, first + chunk_elements)};
}

std::size_t default_chunk_elements(std::size_t n, int ranks) {
  const std::size_t segment = align_up(ceil_div<std::size_t>(n, static_cast<std::size_t>(std::max(ranks, 1))),
                                       kAlignElements);
  return std::clamp(align_up(ceil_div(segment, kTargetChunks), kAlignElements), kMinDefaultChunk, kMaxDefaultChunk);
}

RingPlan plan_ring(std::size_t n, int ranks, std::size_t chunk_elements, int slots) {
  if (ranks < 1) throw std::invalid_argument("a ring needs at least one rank, got " + std::to_string(ranks));
  if (slots < 1) throw std::invalid_argument("a ring needs at least one staging slot, got " + std::to_string(slots));
  RingPlan plan;
  plan.n = n;
  plan.ranks = ranks;
  plan.slots = slots;
  // Segments are whole multiples of kAlignElements, so that every piece starts 256-byte aligned; the
  // price is that the last segments may be a little shorter (or empty, for n < p * 64).
  plan.segment_elements = align_up(ceil_div<std::size_t>(n, static_cast<std::size_t>(ranks)), kAlignElements);
  if (ranks == 1 || n == 0) return plan;  // nothing crosses a link: no messages, no staging

  std::size_t chunk = chunk_elements == 0 ? default_chunk_elements(n, ranks) : chunk_elements;
  chunk = std::max(align_up(chunk, kAlignElements),
                   align_up(ceil_div<std::size_t>(plan.segment_elements, kMaxChunks), kAlignElements));
  plan.chunk_elements = std::min(chunk, plan.segment_elements);  // no staging for more than a segment
  plan.chunks = static_cast<int>(ceil_div(plan.segment_elements, plan.chunk_elements));
  return plan;
}

void simulate_ring(const RingPlan& plan, std::vector<std::vector<float>>& vectors) {
  const int p = plan.ranks;
  if (static_cast<int>(vectors.size()) != p) throw std::invalid_argument("simulate_ring: one vector per rank");
  for (const auto& v : vectors)
    if (v.size() < plan.n) throw std::invalid_argument("simulate_ring: a vector is shorter than n");
  std::vector<std::vector<float>> staging(p, std::vector<float>(plan.staging_elements()));
  for (int m = 0; m < plan.messages(); ++m) {
    const int step = plan.step_of(m), c = plan.piece_of(m);
    const std::size_t slot = static_cast<std::size_t>(plan.slot_of(m)) * plan.chunk_elements;
    // Every rank sends one piece to its right neighbour: into staging during the reduce-scatter,
    // straight into the neighbour's vector during the all-gather.
    for (int r = 0; r < p; ++r) {
      const Range piece = plan.piece(plan.send_segment(r, step), c);
      const int right = (r + 1) % p;
      float* to = plan.reduces(step) ? staging[right].data() + slot : vectors[right].data() + piece.begin;
      std::copy(vectors[r].begin() + piece.begin, vectors[r].begin() + piece.end, to);
    }
    if (!plan.reduces(step)) continue;
    // Every rank adds what arrived into its own copy of that piece.
    for (int r = 0; r < p; ++r) {
      const Range piece = plan.piece(plan.receive_segment(r, step), c);
      for (std::size_t i = 0; i < piece.size(); ++i) vectors[r][piece.begin + i] += staging[r][slot + i];
    }
  }
}

}  // namespace pmpp::ch10::multi_gpu
