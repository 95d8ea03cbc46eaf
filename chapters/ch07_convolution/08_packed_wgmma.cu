// =================================================================================================
// Stage 08: every filter row in one wgmma, the products accumulated in place (beyond the text; Hopper)
//
// What it is:  stage 06's Toeplitz products, with one change of shape. An input row meets all 2r + 1
//              filter rows, each adding to a different output row, so one Hopper wgmma multiplies it
//              (A: 64 windows of 8 outputs, from registers) by the Toeplitz blocks of all filter rows
//              side by side (B: 8 x 8(2r+1), from shared memory): N = 8(2r+1) is wide enough for the
//              tensor cores' full rate, where stage 06's N = 8 gets a third of it. A warpgroup walks
//              down the image one input row at a time, 2r + 1 output rows in flight in its accumulators
//              (a ring). B's blocks are stored twice, in reverse order, so that 2r + 1 consecutive blocks
//              are the filter rows in any rotation: each input row's descriptor starts at the rotation
//              that sends filter row i's product to accumulator block (j - i) mod (2r + 1), the block
//              of the output row it belongs to. Nothing moves between rows: after each row, one block
//              is complete, stored, and zeroed for the row that enters the ring next.
// Changed:     stage 06 issues 16 x 8 x 8 mma.syncs from one warp each and loads B's fragments for
//              every one; here one instruction does 64 x 8(2r+1) x 8, asynchronously, while the threads
//              load the next input row. As in 06, three products (3xTF32) keep the FP32 accuracy.
//              The launcher cuts the image so that segments end on whole turns of the ring, and runs
//              the short band of segments left over beside the others, on a second stream. Blocks away
//              from the image's left and right edges test no columns and step their addresses a row at a
//              time: half the instructions per row of the edge blocks. A pixel's two TF32 parts are cut,
//              not rounded: two instructions instead of five.
// Limitation:  as in stage 06, the zeros: 2r + 1 of each window's 8 k-steps' columns meet a tap, one
//              product of three is the big one. The threads wait for each row's products before they
//              split the next row (wgmma reads its A registers until it completes).
// Preconditions: compute capability 9.0 and code compiled for sm_90a (skipped elsewhere, as are radii
//              below TENSOR_MIN_RADIUS); width, height >= 1; finite inputs (a zero of the Toeplitz blocks
//              times an infinite neighbour is NaN); the filter uploaded with
//              convolution_2D_packed_wgmma_upload_filter before the launch.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/filter_constant.cuh"
#include "ch07_convolution/packed_wgmma.cuh"
#include "ch07_convolution/to_tf32.cuh"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/math.hpp"
#include "pmpp/wgmma_available.cuh"
#include "pmpp/wgmma_sync.cuh"

namespace pmpp::ch07 {

namespace {

constexpr int THREADS = 128;  // one warpgroup
/// Blocks per SM the kernel's registers are capped for (65536 / (3 x 128) = 170 a thread): three
/// warpgroups take turns on the tensor cores while each waits for its products or its loads.
constexpr int MIN_BLOCKS = 3;

// The filter's B, uploaded once per filter (packed_toeplitz_table), copied into shared memory by each block.
__device__ float4 packed_table[packed_table_floats(MAX_FILTER_RADIUS) / 4];

#ifdef PMPP_HAVE_WGMMA  // the kernel's machinery exists only where wgmma does

template <int R>
struct PackedGeometry {
  static constexpr int STEPS = tensor_k_steps(R);  // k-steps of a window's 8 + 2r input columns
  static constexpr int RING = filter_dim(R);       // output rows in flight, one accumulator block each
  static constexpr int HALF_A = (RING + 1) / 2;    // ring blocks 0 .. HALF_A - 1: one wgmma chain,
  static constexpr int HALF_B = RING - HALF_A;     // the rest another, which the tensor cores overlap
  static constexpr int BLOCKS = packed_stored_blocks(R);
  static constexpr int TILE_BYTES = 4 * MMA_K * MMA_N * BLOCKS;  // one k-step's big (or small) part of B
  static constexpr int TABLE_UNITS = packed_table_floats(R) / 4;  // float4s of the whole table
};

//! [descriptor]
/// B's descriptor, K-major without swizzle: its 8 x 4 core matrices (8 columns by 4 k, 128 bytes) lie
/// 128 bytes apart along N and BLOCKS x 128 bytes apart along K (the table's layout). Adding b x 8 to
/// it (16-byte units) starts B at stored block b.
__device__ __forceinline__ std::uint64_t table_descriptor(std::uint32_t shared_address, int blocks) {
  std::uint64_t d = (shared_address & 0x3FFFF) >> 4;        // bits 0-13: start address, 16-byte units
  d |= std::uint64_t{(blocks * 128u >> 4) & 0x3FFF} << 16;  // bits 16-29: next core matrix along K
  d |= std::uint64_t{128 >> 4} << 32;                       // bits 32-45: next core matrix along N
  return d;
}
//! [descriptor]

/// One thread's part of a warpgroup walking down its 8 row segments: the A registers of the current
/// input row, the next row's pixels in flight, and its share of the ring of accumulators.
///
/// INSIDE: every column the block reads and writes lies inside the image, and its outputs are stored as
/// float2 pairs (the blocks of every strip but the first and the last, for an even width). Each row's
/// addresses are then one pointer step a segment, its pixels constant offsets from it, and no column is
/// tested: about half the instructions a row. The edge blocks test every pixel's column and compute each
/// row's addresses afresh. Both ways at once (the pointers and the tests) made ptxas spill registers, and
/// the edge blocks, whose time the wave waits for, slower.
template <int R, bool INSIDE>
struct PackedRing {
  using Geo = PackedGeometry<R>;
  static constexpr int STEPS = Geo::STEPS, RING = Geo::RING, HALF_A = Geo::HALF_A, HALF_B = Geo::HALF_B;

  float ring_a[4 * HALF_A] = {}, ring_b[4 * HALF_B] = {};  // block b's 4 floats at ring_x[4b ..]
  std::uint32_t a_big[STEPS][4], a_small[STEPS][4];        // A fragments: rows g, g + 8; columns t, t + 4
  float next[2][STEPS][2];                                 // the next row's pixels for them
  int column, segment_row[2];  // the thread's first input column (t into its windows); each segment's row 0
  int t, width, height, rows;      // rows: output rows per segment
  bool pairs;
  std::uint64_t table;
  const float* in;
  float* out;
  // INSIDE only: the thread's first pixel in the next input row to load and its first output in the next
  // output row to store, each one row further on after every load and store (they point outside the
  // image while its rows are: nothing is read or written there), and the rows that exist.
  const float* in_row[2];
  float* out_row[2];
  int load_end[2], store_end[2];  // image rows y < load_end are read; outputs o < store_end are stored

  __device__ __forceinline__ float& ring(int b, int e) {
    return b < HALF_A ? ring_a[4 * b + e] : ring_b[4 * (b - HALF_A) + e];
  }

  /// Start loading input row j of the segments (row j - r relative to their first output row).
  __device__ __forceinline__ void load_row(int j) {
    if constexpr (INSIDE)
      load_row_inside(j);
    else
      load_row_at_edge(j);
  }

  __device__ __forceinline__ void load_row_inside(int j) {
#pragma unroll
    for (int m = 0; m < 2; ++m) {
      // Image row y = segment_row + j exists while 0 <= y < load_end (a negative y, as unsigned, does not).
      const bool row_inside = static_cast<unsigned>(segment_row[m] + j) < static_cast<unsigned>(load_end[m]);
      // All 8 x STEPS columns of the window are loaded: past its 8 + 2r they meet only zeros of B (finite
      // inputs: zero products).
#pragma unroll
      for (int s = 0; s < STEPS; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h) next[m][s][h] = row_inside ? __ldg(in_row[m] + MMA_K * s + 4 * h) : 0.0f;
      in_row[m] += width;
    }
  }

  __device__ __forceinline__ void load_row_at_edge(int j) {
    // A window reads 8 + 2r columns; past them its k-steps' columns meet only zeros of B. The bound is
    // computed from rows (always 0 >> 30 = 0) so that the compiler cannot fold a constant zero into a
    // wgmma operand, which costs registers.
    const int window = MMA_N + 2 * R + (rows >> 30);
#pragma unroll
    for (int m = 0; m < 2; ++m) {
      const int y = segment_row[m] + j;
      const bool row_inside = y >= 0 && y < height && j < rows + 2 * R;
      const float* row = in + static_cast<long long>(y) * width;
#pragma unroll
      for (int s = 0; s < STEPS; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int k = MMA_K * s + 4 * h, x = column + k;  // the pixel's column: window column t + k
          next[m][s][h] = row_inside && t + k < window && x >= 0 && x < width ? __ldg(row + x) : 0.0f;
        }
    }
  }

  /// The loaded row as A's fragments, each pixel split into a big and a small TF32 part (cut_to_tf32).
  __device__ __forceinline__ void split_row() {
#pragma unroll
    for (int s = 0; s < STEPS; ++s)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int m = 0; m < 2; ++m) {
          const float v = next[m][s][h], big = cut_to_tf32(v);
          a_big[s][2 * h + m] = __float_as_uint(big);
          a_small[s][2 * h + m] = __float_as_uint(v - big);  // the tensor cores cut it
        }
  }

  //! [products]
  /// The row's products with B starting at stored block ROTATION: filter row (j - b) mod (2r + 1) goes
  /// to ring block b. Per k-step the small corrections first, the big product last.
  template <int ROTATION>
  __device__ __forceinline__ void issue_products() {
#pragma unroll
    for (int s = 0; s < STEPS; ++s) {
      const std::uint64_t big = table + ((2 * s) * Geo::TILE_BYTES >> 4) + ROTATION * 8;
      const std::uint64_t small = big + (Geo::TILE_BYTES >> 4);
      PackedWgmma<8 * HALF_A>::add(ring_a, a_small[s], big);
      PackedWgmma<8 * HALF_B>::add(ring_b, a_small[s], big + 8 * HALF_A);
      PackedWgmma<8 * HALF_A>::add(ring_a, a_big[s], small);
      PackedWgmma<8 * HALF_B>::add(ring_b, a_big[s], small + 8 * HALF_A);
      PackedWgmma<8 * HALF_A>::add(ring_a, a_big[s], big);
      PackedWgmma<8 * HALF_B>::add(ring_b, a_big[s], big + 8 * HALF_A);
    }
  }

  /// Input row j, which is U mod (2r + 1): its products, then the next row's split and loads, then
  /// output row j - 2r, complete in ring block (U + 1) mod (2r + 1), stored and that block zeroed.
  template <int U>
  __device__ __forceinline__ void row_step(int j) {
    // Every register the products read is written before the fence (not sunk past it by the compiler),
    // and the descriptor stays a register (not folded into one constant per k-step).
#pragma unroll
    for (int s = 0; s < STEPS; ++s) wgmma_operand_fence(a_big[s]), wgmma_operand_fence(a_small[s]);
    wgmma_operand_fence(ring_a);
    wgmma_operand_fence(ring_b);
    asm volatile("mov.b64 %0, %0;" : "+l"(table));
    wgmma_fence();
    issue_products<(RING - 1 - U % RING) % RING>();
    wgmma_commit();
    wgmma_wait<0>();  // the products have read a_big and a_small, and the ring is up to date
    wgmma_operand_fence(ring_a);
    wgmma_operand_fence(ring_b);
    split_row();
    load_row(j + 2);
    store_and_clear<(U + 1) % RING>(j - 2 * R);
  }
  //! [products]

  /// Store output row o of each segment from ring block B (2 outputs a window a thread), then zero it.
  template <int B>
  __device__ __forceinline__ void store_and_clear(int o) {
    if constexpr (INSIDE)
      store_inside<B>(o);
    else
      store_at_edge<B>(o);
#pragma unroll
    for (int e = 0; e < 4; ++e) ring(B, e) = 0.0f;
  }

  template <int B>
  __device__ __forceinline__ void store_inside(int o) {
#pragma unroll
    for (int m = 0; m < 2; ++m) {
      // o < 0 (the ring still filling) is, as unsigned, past store_end too.
      if (static_cast<unsigned>(o) < static_cast<unsigned>(store_end[m]))
        *reinterpret_cast<float2*>(out_row[m]) = make_float2(ring(B, 2 * m), ring(B, 2 * m + 1));
      out_row[m] += width;
    }
  }

  template <int B>
  __device__ __forceinline__ void store_at_edge(int o) {
    if (o >= 0 && o < rows) {
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        const int y = segment_row[m] + R + o, x = column + R + t;  // the first of the thread's 2 outputs
        if (y >= height || x >= width) continue;
        float* dst = out + static_cast<long long>(y) * width + x;
        const float v0 = ring(B, 2 * m), v1 = ring(B, 2 * m + 1);
        if (pairs && x + 1 < width) {
          *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
        } else {
          dst[0] = v0;
          if (x + 1 < width) dst[1] = v1;
        }
      }
    }
  }

  /// One turn of the ring: 2r + 1 rows from row j0, a multiple of 2r + 1.
  template <int U = 0>
  __device__ __forceinline__ void ring_turn(int j0) {
    row_step<U>(j0 + U);
    if constexpr (U + 1 < RING) ring_turn<U + 1>(j0);
  }

  //! [walk]
  /// The whole walk: rows + 2r input rows make the segments' rows outputs, in whole turns of the ring, so
  /// that no branch separates the wgmmas of one turn (rows of a turn past the segment's end load and store
  /// nothing).
  __device__ __forceinline__ void walk() {
    load_row(0);
    split_row();
    load_row(1);
#pragma unroll 1
    for (int j0 = 0; j0 < rows + 2 * R; j0 += RING) ring_turn(j0);
  }
  //! [walk]
};

/// This block's walk: row m of the thread's two A rows (16w + g + 8m) is window g of segment q = 2w + m:
/// 8 windows of 8 outputs span the block's 64 columns, 8 segments of `rows` rows its height, from image
/// row first_row.
template <int R, bool INSIDE>
__device__ __forceinline__ void walk_block(const float* in, float* out, int width, int height, int first_row,
                                           int rows, bool pairs, std::uint64_t table) {
  PackedRing<R, INSIDE> ring;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4;
  ring.t = lane % 4;
  ring.width = width, ring.height = height, ring.rows = rows, ring.pairs = pairs;
  ring.in = in, ring.out = out, ring.table = table;
  ring.column = static_cast<int>(blockIdx.x) * PACKED_WINDOWS * MMA_N + MMA_N * g - R + ring.t;
#pragma unroll
  for (int m = 0; m < 2; ++m) {
    const int segment = 2 * warp + m;
    const int row = first_row + (static_cast<int>(blockIdx.y) * PACKED_SEGMENTS + segment) * rows - R;
    ring.segment_row[m] = row;
    if constexpr (INSIDE) {
      ring.load_end[m] = min(height, row + rows + 2 * R);
      ring.store_end[m] = max(0, min(rows, height - (row + R)));
      // The first load is input row 0; the first store, in the same row step, output row -2r.
      ring.in_row[m] = in + static_cast<long long>(row) * width + ring.column;
      ring.out_row[m] = out + static_cast<long long>(row - R) * width + ring.column + R + ring.t;
    }
  }
  ring.walk();
}

#endif  // PMPP_HAVE_WGMMA

//! [kernel]
template <int FILTER_RADIUS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    convolution_2D_packed_wgmma_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height,
                                       int first_row, int rows, bool pairs) {
#ifdef PMPP_HAVE_WGMMA  // the launcher never starts it elsewhere (packed_wgmma_skip_reason)
  using Geo = PackedGeometry<FILTER_RADIUS>;
  extern __shared__ __align__(128) float4 table[];
  for (int u = threadIdx.x; u < Geo::TABLE_UNITS; u += THREADS) table[u] = packed_table[u];
  fence_for_async_proxy();  // ordinary stores, read by wgmma
  __syncthreads();

  const std::uint64_t descriptor =
      table_descriptor(static_cast<std::uint32_t>(__cvta_generic_to_shared(table)), Geo::BLOCKS);
  // The block reads columns x0 - r to x0 + 56 - r + 8 STEPS - 1 (its last window's k-steps).
  const int x0 = static_cast<int>(blockIdx.x) * PACKED_WINDOWS * MMA_N;
  const bool inside = pairs && x0 >= FILTER_RADIUS &&
                      x0 + (PACKED_WINDOWS - 1) * MMA_N - FILTER_RADIUS + MMA_K * Geo::STEPS <= width;
  if (inside)
    walk_block<FILTER_RADIUS, true>(N, P, width, height, first_row, rows, pairs, descriptor);
  else
    walk_block<FILTER_RADIUS, false>(N, P, width, height, first_row, rows, pairs, descriptor);
#endif
}
//! [kernel]

}  // namespace

// ---- Launcher -----------------------------------------------------------------------------------

std::string packed_wgmma_skip_reason(const Conv2dArgs& a) {
  if (const std::string why = tensor_radius_skip_reason(a.radius); !why.empty()) return why;
  return wgmma_unavailable_here();
}

void convolution_2D_packed_wgmma_upload_filter(const float* host_filter, int radius) {
  check_filter_radius(radius);
  const int taps = filter_dim(radius) * filter_dim(radius);
  const std::vector<float> table = packed_toeplitz_table(std::vector<float>(host_filter, host_filter + taps), radius);
  CUDA_CHECK(cudaMemcpyToSymbol(packed_table, table.data(), sizeof(float) * table.size(), 0, cudaMemcpyHostToDevice));
}

namespace {
/// The stream the full bands run on, at the highest priority, so that the SMs take all of their blocks
/// before any of the last band's, which run on the default stream in the slots they leave free. Made
/// once per process (the chapter's programs use one GPU); the events order it after and before the
/// default stream's work, so that a timing there covers both launches.
struct FullBandStream {
  cudaStream_t stream{};
  cudaEvent_t fork{}, join{};
  FullBandStream() {
    int lowest = 0, highest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, highest));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  }
};

const FullBandStream& full_band_stream() {
  static const FullBandStream made;
  return made;
}

template <int R>
LaunchConfig launch_packed_wgmma(const Conv2dArgs& a) {
  constexpr std::size_t SHARED_BYTES = sizeof(float) * packed_table_floats(R);
  const auto kernel = convolution_2D_packed_wgmma_kernel<R>;
  require_wgmma_launch("stage 08", SHARED_BYTES);
  CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(SHARED_BYTES)));
  // About one wave: as many blocks as the SMs hold at once, each strip of 64 output columns cut into
  // bands of 8 segments (longer segments waste less on the 2r rows that only fill the ring), the last
  // band shorter (packed_bands).
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, SHARED_BYTES));
  const long long sms = current_device_attribute(cudaDevAttrMultiProcessorCount);
  const PackedBands plan = packed_bands(a.width, a.height, R, std::max(per_sm, 1) * sms);
  const dim3 block(THREADS);
  // Pairs of outputs are stored as float2 where every row starts 8-byte aligned.
  const bool pairs = a.width % 2 == 0 && reinterpret_cast<std::uintptr_t>(a.out) % 8 == 0;
  const unsigned columns = static_cast<unsigned>(plan.columns);
  //! [bands]
  const FullBandStream* full = plan.bands > 1 ? &full_band_stream() : nullptr;
  if (full != nullptr) {
    CUDA_CHECK(cudaEventRecord(full->fork, nullptr));
    CUDA_CHECK(cudaStreamWaitEvent(full->stream, full->fork));
    const dim3 grid(columns, static_cast<unsigned>(plan.bands - 1));
    kernel<<<grid, block, SHARED_BYTES, full->stream>>>(a.in, a.out, a.width, a.height, 0, plan.rows, pairs);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(full->join, full->stream));
  }
  const int last_band_row = (plan.bands - 1) * PACKED_SEGMENTS * plan.rows;
  kernel<<<columns, block, SHARED_BYTES>>>(a.in, a.out, a.width, a.height, last_band_row, plan.last_rows, pairs);
  CUDA_CHECK_LAUNCH();
  if (full != nullptr) CUDA_CHECK(cudaStreamWaitEvent(nullptr, full->join));
  //! [bands]
  return {{columns, static_cast<unsigned>(plan.bands), 1}, {block.x, block.y, block.z}, SHARED_BYTES};
}
}  // namespace

LaunchConfig convolution_2D_packed_wgmma(const Conv2dArgs& a) {
  check_filter_radius(a.radius);
  require_tensor_radius("stage 08", a.radius);
  LaunchConfig config;
  with_filter_radius(a.radius, [&](auto r) {
    constexpr int R = decltype(r)::value;
    if constexpr (R >= TENSOR_MIN_RADIUS) config = launch_packed_wgmma<R>(a);
  });
  return config;
}

}  // namespace pmpp::ch07
