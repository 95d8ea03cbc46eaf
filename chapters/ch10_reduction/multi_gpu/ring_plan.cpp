// The rings' plans: how an n-float all-reduce over p ranks is cut into segments and pieces, for the
// copy-engine ring (a few large messages through a few staging slots) and the fused ring (many small
// pieces, one or more per block, each with staging slots of its own), and the copy-engine ring's plan
// run on the CPU.
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

std::size_t default_chunk_elements(std::size_t n, int ranks) {
  const std::size_t segment = align_up(ceil_div<std::size_t>(n, static_cast<std::size_t>(std::max(ranks, 1))),
                                       kAlignElements);
  return std::clamp(align_up(ceil_div(segment, kTargetChunks), kAlignElements), kMinDefaultChunk, kMaxDefaultChunk);
}

namespace {
// Pieces of about `chunk` floats, rounded to kAlignElements and raised until a segment has at most
// `max_chunks`; never more than a segment.
void cut_into_pieces(RingPlan& plan, std::size_t chunk, int max_chunks) {
  chunk = std::max(align_up(chunk, kAlignElements),
                   align_up(ceil_div<std::size_t>(plan.segment_elements, static_cast<std::size_t>(max_chunks)),
                            kAlignElements));
  plan.chunk_elements = std::min(chunk, plan.segment_elements);
  plan.chunks = static_cast<int>(ceil_div(plan.segment_elements, plan.chunk_elements));
}

RingPlan segments(std::size_t n, int ranks) {
  if (ranks < 1) throw std::invalid_argument("a ring needs at least one rank, got " + std::to_string(ranks));
  RingPlan plan;
  plan.n = n;
  plan.ranks = ranks;
  // Segments are whole multiples of kAlignElements, so that every piece starts 256-byte aligned; the
  // price is that the last segments may be a little shorter (or empty, for n < p * 64).
  plan.segment_elements = align_up(ceil_div<std::size_t>(n, static_cast<std::size_t>(ranks)), kAlignElements);
  return plan;
}

// The fused ring's default pieces: at most this large (so that a block has several pieces of a large
// vector, and the flags pipeline its steps finely)...
constexpr std::size_t kMaxFusedPiece = std::size_t{1} << 18;  // 1 MiB
// ... and at least this large (a smaller piece costs a flag's round trip for too few bytes).
constexpr std::size_t kMinFusedPiece = std::size_t{1} << 12;  // 16 KiB
}  // namespace

RingPlan plan_ring(std::size_t n, int ranks, std::size_t chunk_elements, int slots) {
  if (slots < 1) throw std::invalid_argument("a ring needs at least one staging slot, got " + std::to_string(slots));
  RingPlan plan = segments(n, ranks);
  plan.slots = slots;
  if (ranks == 1 || n == 0) return plan;  // nothing crosses a link: no messages, no staging
  cut_into_pieces(plan, chunk_elements == 0 ? default_chunk_elements(n, ranks) : chunk_elements, kMaxChunks);
  return plan;
}

namespace {
// The fused ring's staging slots per piece: as asked, or kFusedSlots; never more than the p-1
// reduce-scatter pushes a piece receives, which need no slot twice; and at least two where a slot is
// reused (p > 2). With one, the credit for a push of step t would come from the receiver's push of
// step t, which waits for the credit from its own receiver's step t, around the ring back to the
// sender: a deadlock. With s >= 2 every wait is for an earlier step (t - s + 1), so the waits end.
int fused_slots(int ranks, int slots) {
  if (slots < 0) throw std::invalid_argument("the fused ring needs 0 (the default) or more slots, got " +
                                             std::to_string(slots));
  if (ranks < 2) return 1;
  return std::clamp(slots == 0 ? kFusedSlots : slots, std::min(2, ranks - 1), ranks - 1);
}
}  // namespace

RingPlan plan_fused_ring(std::size_t n, int ranks, int blocks, std::size_t chunk_elements, int slots) {
  if (blocks < 1) throw std::invalid_argument("the fused ring needs at least one block, got " + std::to_string(blocks));
  RingPlan plan = segments(n, ranks);
  plan.slots = fused_slots(ranks, slots);
  if (ranks == 1 || n == 0) return plan;
  if (chunk_elements == 0) {
    // As many pieces as blocks, or twice, three times ... as many, so that each block has the same
    // number of pieces and none is above kMaxFusedPiece.
    const std::size_t b = static_cast<std::size_t>(blocks);
    const std::size_t rounds = ceil_div(plan.segment_elements, b * kMaxFusedPiece);
    chunk_elements = std::max(ceil_div(plan.segment_elements, b * rounds), kMinFusedPiece);
  }
  cut_into_pieces(plan, chunk_elements, kMaxFusedChunks);
  return plan;
}

std::size_t fused_staging_elements(std::size_t capacity, int ranks, int slots) {
  if (ranks < 2 || capacity == 0) return 0;  // nothing is pushed
  return static_cast<std::size_t>(fused_slots(ranks, slots)) * segments(capacity, ranks).segment_elements;
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
