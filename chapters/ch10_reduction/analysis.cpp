// The text's analysis (sections 10.4-10.6) as code: its closed forms, tested against the numbers it
// prints, and the same rules counted warp by warp over each kernel exactly as written here, for any n.
// The counting build counts the same quantities on the GPU (counted_float.cuh); tests require agreement.
#include <algorithm>
#include <cstdint>
#include <sstream>

#include "ch10_reduction/reduction.hpp"

namespace pmpp::ch10 {

std::string ReductionLaunch::to_string() const {
  std::ostringstream s;
  s << "grid " << grid << " x block " << block << ", shared " << shared_bytes << " B, " << launches
    << (launches == 1 ? " launch" : " launches");
  return s.str();
}

// ---- The text's closed forms -------------------------------------------------------------------

bool text_formulas_apply(std::size_t N) { return N >= 64 && (N & (N - 1)) == 0; }

namespace {
// N/64 + N/128 + ... + 1: the warps still busy while the active threads halve from N/2 down to 32.
unsigned long long halving_warps(std::size_t N) {
  unsigned long long total = 0;
  for (std::size_t warps = N / 64; warps >= 1; warps /= 2) total += warps;
  return total;
}
}  // namespace

unsigned long long text_simple_committed(std::size_t N) {
  // N/64 * (32+16+8+4+2+1) + N/64 * 1/2 * 1 + N/64 * 1/4 * 1 + ... + 1
  return N / 64 * (32 + 16 + 8 + 4 + 2 + 1) + (halving_warps(N) - N / 64);
}

unsigned long long text_simple_consumed(std::size_t N) {
  // (N/64 * 5 + N/64 * 1/2 + N/64 * 1/4 + ... + 1) * 32, as printed
  return (N / 64 * 5 + (halving_warps(N) - N / 64)) * 32;
}

unsigned long long text_simple_requests(std::size_t N) {
  // (N/64 * 5 * 2 + N/64 * 1 + N/64 * 1/2 + ... + 1) * 3
  return (N / 64 * 5 * 2 + halving_warps(N)) * 3;
}

unsigned long long text_convergent_consumed(std::size_t N) {
  // (N/64 * 1 + N/64 * 1/2 + ... + 1 + 5 * 1) * 32
  return (halving_warps(N) + 5) * 32;
}

unsigned long long text_convergent_requests(std::size_t N) {
  // ((N/64 + N/64 * 1/2 + ... + 1) + 5) * 3
  return (halving_warps(N) + 5) * 3;
}

unsigned long long text_shared_memory_requests(std::size_t N) { return N / 32 + 1; }

// ---- The text's rules, counted -------------------------------------------------------------------

namespace {
constexpr unsigned kWarp = 32;
constexpr std::uint64_t kSegmentBytes = 128;  // the text's unit of a request (section 10.5)
constexpr std::uint64_t kSectorBytes = 32;    // what the memory system moves, and profilers count
// Every array gets its own region of one pretend address space, starting 128-byte aligned as
// cudaMalloc's allocations do: the input and stage 06's scratch. (The output is one float: any access
// to it is one segment and one sector.)
constexpr std::uint64_t kInput = 0;
constexpr std::uint64_t kScratch = std::uint64_t{1} << 51;

unsigned lanes_in_warp(unsigned block, unsigned warp) { return std::min(kWarp, block - warp * kWarp); }
unsigned warps_in(unsigned block) { return (block + kWarp - 1) / kWarp; }

enum class Access { load, store };  // a store, or an atomic: anything but a load

/// The accounting of sections 10.4 and 10.5, one warp instruction at a time.
struct Tally {
  ResourceCounts counts;

  /// A warp of @p lanes lanes reaches an add; active(lane) says which lanes execute it.
  template <class Active>
  void combine(unsigned lanes, Active&& active, unsigned ops = 1) {
    unsigned adding = 0;
    for (unsigned lane = 0; lane < lanes; ++lane) adding += active(lane) ? 1 : 0;
    add_combine(adding, ops);
  }
  /// The same, when the number of adding lanes is known.
  void add_combine(unsigned adding, unsigned ops = 1) {
    if (adding == 0) return;  // a warp with no adding lane consumes nothing (it skips the add)
    counts.committed += static_cast<unsigned long long>(adding) * ops;
    counts.consumed += static_cast<unsigned long long>(kWarp) * ops;
  }
  /// A warp of @p lanes lanes makes one global access; address(lane) is the byte each active lane touches.
  template <class Active, class Address>
  void access(unsigned lanes, Active&& active, Address&& address, Access kind) {
    std::uint64_t segments[kWarp], sectors[kWarp];
    unsigned distinct_segments = 0, distinct_sectors = 0;
    for (unsigned lane = 0; lane < lanes; ++lane) {
      if (!active(lane)) continue;
      const std::uint64_t segment = address(lane) / kSegmentBytes, sector = address(lane) / kSectorBytes;
      if (std::find(segments, segments + distinct_segments, segment) == segments + distinct_segments)
        segments[distinct_segments++] = segment;
      if (std::find(sectors, sectors + distinct_sectors, sector) == sectors + distinct_sectors)
        sectors[distinct_sectors++] = sector;
    }
    add_access(distinct_segments, distinct_sectors, kind);
  }
  /// A warp access by @p active lanes to consecutive elements of @p bytes each, from byte @p first.
  void access_run(std::uint64_t first, unsigned active, unsigned bytes, Access kind) {
    if (active == 0) return;
    const std::uint64_t last = first + std::uint64_t{active} * bytes - 1;
    add_access(static_cast<unsigned>(last / kSegmentBytes - first / kSegmentBytes + 1),
               static_cast<unsigned>(last / kSectorBytes - first / kSectorBytes + 1), kind);
  }
  /// One lane's access of one element.
  void access_one(Access kind) { add_access(1, 1, kind); }
  void add_access(unsigned segments, unsigned sectors, Access kind) {
    if (segments == 0) return;
    counts.requests += segments;
    counts.accesses += 1;
    if (kind == Access::load) {
      counts.loads += 1;
      counts.load_sectors += sectors;
    }
  }
};

ResourceCounts scaled(ResourceCounts c, unsigned long long k) {
  return {c.committed * k, c.consumed * k, c.requests * k, c.accesses * k, c.loads * k, c.load_sectors * k};
}
ResourceCounts plus(ResourceCounts a, const ResourceCounts& b) {
  return {a.committed + b.committed, a.consumed + b.consumed, a.requests + b.requests,
          a.accesses + b.accesses,   a.loads + b.loads,       a.load_sectors + b.load_sectors};
}

std::uint64_t float_at(std::uint64_t index) { return kInput + 4 * index; }

// One step of an in-place tree (stages 01 and 02): every thread t for which adds(t) holds reads
// input[owner(t)] and input[owner(t) + stride], adds, and writes input[owner(t)]. The two stages differ
// only in owner and adds, exactly as their kernels do.
template <class Owner, class Adds>
void count_in_place_step(Tally& tally, unsigned block, std::size_t stride, Owner owner, Adds adds) {
  for (unsigned w = 0; w < warps_in(block); ++w) {
    const auto thread = [&](unsigned lane) { return static_cast<std::size_t>(w) * kWarp + lane; };
    const auto active = [&](unsigned lane) { return adds(thread(lane)); };
    const unsigned lanes = lanes_in_warp(block, w);
    tally.combine(lanes, active);
    tally.access(lanes, active, [&](unsigned lane) { return float_at(owner(thread(lane))); }, Access::load);
    tally.access(lanes, active, [&](unsigned lane) { return float_at(owner(thread(lane)) + stride); },
                 Access::load);
    tally.access(lanes, active, [&](unsigned lane) { return float_at(owner(thread(lane))); }, Access::store);
  }
}

// Thread 0's final `*output = input[0]` in stages 01 and 02.
void count_in_place_finish(Tally& tally) {
  tally.access_one(Access::load);   // input[0]
  tally.access_one(Access::store);  // *output
}

// The convergent tree over a block's shared-memory slots (stages 03-05): at stride s the threads below
// s add slot t + s. In a segment cut short by the end of the input, some of those slots hold only the
// identity; their lanes still execute the add, and count as the hardware runs them.
void count_shared_tree(Tally& tally, unsigned block) {
  for (unsigned stride = block / 2; stride >= 1; stride /= 2)
    for (unsigned w = 0; w < warps_in(block); ++w)
      tally.combine(lanes_in_warp(block, w), [&](unsigned lane) { return w * kWarp + lane < stride; });
}

// Thread 0's one access to the output (a store or an atomic).
void count_output_store(Tally& tally) { tally.access_one(Access::store); }

// Stage 04's work for the block whose segment starts at @p segment.
ResourceCounts segmented_block(std::size_t segment, std::size_t n) {
  Tally tally;
  for (unsigned w = 0; w < warps_in(BLOCK_DIM); ++w) {
    const std::size_t first = segment + w * kWarp;  // element of lane 0
    const auto in_range = [&](std::size_t offset) {
      return static_cast<unsigned>(std::min<std::size_t>(kWarp, first + offset < n ? n - first - offset : 0));
    };
    tally.add_combine(in_range(BLOCK_DIM));
    tally.access_run(float_at(first), in_range(0), 4, Access::load);
    tally.access_run(float_at(first + BLOCK_DIM), in_range(BLOCK_DIM), 4, Access::load);
  }
  count_shared_tree(tally, BLOCK_DIM);
  count_output_store(tally);
  return tally.counts;
}

// Stage 05's work for the block whose segment starts at @p segment.
ResourceCounts coarsened_block(std::size_t segment, std::size_t n) {
  Tally tally;
  for (unsigned tile = 0; tile < COARSE_FACTOR * 2; ++tile)
    for (unsigned w = 0; w < warps_in(BLOCK_DIM); ++w) {
      const std::size_t first = segment + static_cast<std::size_t>(tile) * BLOCK_DIM + w * kWarp;
      const unsigned active = static_cast<unsigned>(std::min<std::size_t>(kWarp, first < n ? n - first : 0));
      if (tile > 0) tally.add_combine(active);  // tile 0 is the load that starts the thread's sum
      tally.access_run(float_at(first), active, 4, Access::load);
    }
  count_shared_tree(tally, BLOCK_DIM);
  count_output_store(tally);
  return tally.counts;
}

// Blocks with segments of @p segment_elements elements: every full block counts the same (the
// segments start 128-byte aligned), so one full block and the partial last one are enough.
template <class Block>
ResourceCounts over_segments(std::size_t n, std::size_t segment_elements, Block&& block) {
  const std::size_t full = n / segment_elements;
  ResourceCounts total;
  if (full > 0) total = scaled(block(0, segment_elements), full);
  if (n % segment_elements != 0) total = plus(total, block(full * segment_elements, n));
  return total;
}

// Stage 06's block_reduce: 5 shuffle steps in every warp, then log2(WARPS) in warp 0, every lane
// adding at each (only the lanes below the offset keep a result that is read again).
void count_block_reduce(Tally& tally) {
  constexpr unsigned warps = SINGLE_PASS_BLOCK_DIM / kWarp;
  for (unsigned w = 0; w < warps; ++w)
    for (unsigned offset = 16; offset > 0; offset /= 2) tally.add_combine(kWarp);
  for (unsigned offset = warps / 2; offset > 0; offset /= 2) tally.add_combine(kWarp);
}
}  // namespace

ResourceCounts simple_counts(std::size_t n, const ReductionLaunch& c) {
  Tally tally;
  if (c.grid == 0) return tally.counts;
  for (std::size_t stride = 1; stride <= c.block; stride *= 2)
    count_in_place_step(tally, c.block, stride, [](std::size_t t) { return 2 * t; },
                        [&](std::size_t t) { return t % stride == 0 && 2 * t + stride < n; });
  count_in_place_finish(tally);
  return tally.counts;
}

ResourceCounts convergent_counts(std::size_t n, const ReductionLaunch& c) {
  Tally tally;
  if (c.grid == 0) return tally.counts;
  for (std::size_t stride = c.block; stride >= 1; stride /= 2)
    count_in_place_step(tally, c.block, stride, [](std::size_t t) { return t; },
                        [&](std::size_t t) { return t < stride && t + stride < n; });
  count_in_place_finish(tally);
  return tally.counts;
}

ResourceCounts shared_memory_counts(std::size_t n, const ReductionLaunch& c) {
  Tally tally;
  if (c.grid == 0) return tally.counts;
  for (unsigned w = 0; w < warps_in(c.block); ++w) {
    const unsigned lanes = lanes_in_warp(c.block, w);
    const auto t = [&](unsigned lane) { return static_cast<std::size_t>(w) * kWarp + lane; };
    const auto partner = [&](unsigned lane) { return t(lane) + c.block < n; };
    // input_s[t] = input[t] (every thread's element exists), then input_s[t] += input[t + blockDim.x].
    tally.access(lanes, [](unsigned) { return true; }, [&](unsigned lane) { return float_at(t(lane)); }, Access::load);
    tally.combine(lanes, partner);
    tally.access(lanes, partner, [&](unsigned lane) { return float_at(t(lane) + c.block); }, Access::load);
  }
  count_shared_tree(tally, c.block);
  count_output_store(tally);
  return tally.counts;
}

ResourceCounts segmented_counts(std::size_t n, const ReductionLaunch& c) {
  if (c.grid == 0) return {};
  return over_segments(n, 2 * static_cast<std::size_t>(BLOCK_DIM),
                       [](std::size_t segment, std::size_t end) { return segmented_block(segment, end); });
}

ResourceCounts coarsened_counts(std::size_t n, const ReductionLaunch& c) {
  if (c.grid == 0) return {};
  return over_segments(n, COARSE_FACTOR * 2 * static_cast<std::size_t>(BLOCK_DIM),
                       [](std::size_t segment, std::size_t end) { return coarsened_block(segment, end); });
}

ResourceCounts single_pass_counts(std::size_t n, const ReductionLaunch& c) {
  // The input starts 16-byte aligned (as cudaMalloc's does), so there is no head, only a tail. Only
  // the float data is counted (input, block results, output), not the unsigned block counter.
  Tally tally;
  const std::size_t body = n / 4, tail = n % 4;
  const std::size_t grid_threads = static_cast<std::size_t>(c.grid) * c.block;
  const unsigned warps = c.block / kWarp;
  const auto active_from = [&](std::size_t first) {
    return static_cast<unsigned>(std::min<std::size_t>(kWarp, first < body ? body - first : 0));
  };
  tally.add_combine(static_cast<unsigned>(tail));
  tally.access_run(float_at(4 * body), static_cast<unsigned>(tail), 4, Access::load);
  for (unsigned b = 0; b < c.grid; ++b) {
    const std::size_t round = SINGLE_PASS_UNROLL * grid_threads;
    for (std::size_t base = static_cast<std::size_t>(b) * c.block; base < body; base += round) {
      // The lanes past the end load nothing, but add the identity with the others: 4 adds per float4.
      for (unsigned u = 0; u < SINGLE_PASS_UNROLL; ++u)
        for (unsigned w = 0; w < warps; ++w) {
          const std::size_t first = base + u * grid_threads + w * kWarp;
          tally.access_run(kInput + 16 * first, active_from(first), 16, Access::load);
        }
      for (unsigned u = 0; u < SINGLE_PASS_UNROLL; ++u)
        for (unsigned w = 0; w < warps; ++w) tally.add_combine(kWarp, 4);
    }
    count_block_reduce(tally);
    tally.access_one(Access::store);  // the output (a one-block grid), else this block's result
    if (c.grid == 1) return tally.counts;
  }
  // The last block combines the grid's results, then stores the output.
  for (std::size_t first = 0; first < c.grid; first += c.block)
    for (unsigned w = 0; w < warps; ++w) {
      const std::size_t from = first + w * kWarp;
      const unsigned active = static_cast<unsigned>(std::min<std::size_t>(kWarp, from < c.grid ? c.grid - from : 0));
      tally.add_combine(active);
      tally.access_run(kScratch + SINGLE_PASS_RESULTS_OFFSET + 4 * from, active, 4, Access::load);
    }
  count_block_reduce(tally);
  tally.access_one(Access::store);
  return tally.counts;
}

}  // namespace pmpp::ch10
