// =================================================================================================
// 2D matrix sum, "outer_columns" strategy (beyond the source): one thread per tall patch, one launch
//
// What it is:  the outer idea (one thread, many elements, no barrier inside its patch) with the patch
//              turned on its side: a thread sums a few rows of one column, four floats wide, so at
//              every step the 32 lanes of a warp read 32 neighbouring float4s, coalesced, and each
//              thread's sum is still a spatial patch. Rows that do not start on a 16-byte boundary (a
//              width that is not a multiple of 4) are read as the aligned float4s that cover them, each
//              float kept only by the row it belongs to. The grid holds as many blocks as the GPU runs
//              at once; each thread takes patch after patch, a grid's worth apart. Then, in the same
//              launch, the blocks combine their threads' sums with shuffles and the last block to
//              finish combines the blocks' (block_combine.cuh, as stage 06 does).
// Changed:     outer's lanes start 64 bytes apart; outer_coalesced reads coalesced but sums elements a
//              pass-width apart. Here both hold, and one launch with a grid sized to the GPU replaces
//              the passes, whose later ones are too small to fill it.
// Limitation:  the last block's combine waits for the slowest block; a matrix that does not itself
//              start on a 16-byte boundary is read one float at a time.
// Preconditions: rows, cols >= 1; scratch of outer_columns_scratch_bytes(), zeroed once.
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ch10_reduction/block_combine.cuh"
#include "ch10_reduction/matrix_sum/matrix_sum.hpp"
#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Constants ----------------------------------------------------------------------------------

/// How a thread reads its patch's rows.
enum class RowReads {
  float4s,         ///< every row starts on a 16-byte boundary: a column is one float4 of every row
  masked_float4s,  ///< the matrix does, its rows do not: aligned float4s, the other rows' floats masked out
  floats,          ///< not even the matrix does: one float at a time
};

/// How each way of reading is launched: rows per patch (all loaded before the first add), threads per
/// block, and the blocks per SM the compiler must leave registers for: the fastest of sweeps over 2 to
/// 32 rows, 128 to 1024 threads and 1 to 8 blocks an SM, measured on an H100 at 8192^2 and
/// 8191 x 12289 (the header says what the minimum and the shorter masked patches changed). Float4s:
/// 91 registers, 2 blocks an SM; masked float4s, whose rows each need a mask and an address: 54
/// registers, 4 blocks an SM.
template <RowReads READS>
struct ColumnsLaunch {
  static constexpr unsigned int PATCH_ROWS = READS == RowReads::masked_float4s ? 4 : 16;
  static constexpr unsigned int BLOCK_DIM = READS == RowReads::floats ? 1024 : 256;
  // 0 for single floats: no minimum, the compiler's choice (32 registers, 2048 threads an SM on an
  // H100). A minimum of 2 blocks of 1024 does not fit GPUs that hold fewer threads an SM: the
  // compiler warns and ignores it there.
  static constexpr unsigned int MIN_BLOCKS =
      READS == RowReads::float4s ? 1 : READS == RowReads::masked_float4s ? 4 : 0;
};

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
// A "column" is one float4 of every row (RowReads::float4s), one aligned float4 of every row with the
// floats of neighbouring rows masked out (masked_float4s: the float4s of a row whose start is not on
// a 16-byte boundary hold the end of the row before it or the start of the row after it, which those
// rows count), or one float (floats).
template <RowReads READS>
__global__ void __launch_bounds__(ColumnsLaunch<READS>::BLOCK_DIM, ColumnsLaunch<READS>::MIN_BLOCKS)
    reductionOuterColumns(const float* __restrict__ src, std::size_t rows, std::size_t cols, float* __restrict__ dst,
                          float* __restrict__ block_results, unsigned int* __restrict__ blocks_done) {
  constexpr bool VECTOR = READS != RowReads::floats;
  using Unit = std::conditional_t<VECTOR, float4, float>;
  constexpr unsigned int BLOCK_DIM = ColumnsLaunch<READS>::BLOCK_DIM, PATCH_ROWS = ColumnsLaunch<READS>::PATCH_ROWS;
  const Unit* units = reinterpret_cast<const Unit*>(src);
  // Columns per band of rows: a row of cols floats touches at most (cols + 2) / 4 + 1 aligned float4s.
  const std::size_t width = READS == RowReads::float4s          ? cols / 4
                            : READS == RowReads::masked_float4s ? (cols + 2) / 4 + 1
                                                                : cols;
  const std::size_t total = rows * cols;
  // Patch p covers column p % width of rows (p / width) * PATCH_ROWS onwards: consecutive threads
  // take neighbouring columns of the same rows, so at every step a warp reads consecutive units.
  const std::size_t bands = ceil_div<std::size_t>(rows, PATCH_ROWS);
  const std::size_t grid_threads = static_cast<std::size_t>(gridDim.x) * BLOCK_DIM;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * BLOCK_DIM + threadIdx.x;
  std::size_t band = first / width, col = first % width;
  // The grid-wide stride in whole bands and leftover columns: two divisions per thread, not per patch.
  const std::size_t band_step = grid_threads / width, col_step = grid_threads % width;

  float sum = 0.0f;
  auto add = [&sum](float4 v) { sum += (v.x + v.y) + (v.z + v.w); };
  auto add_unit = [&add, &sum](Unit v) {
    if constexpr (VECTOR) add(v);
    else sum += v;
  };
  while (band < bands) {
    const std::size_t row0 = band * PATCH_ROWS;
    if constexpr (READS == RowReads::masked_float4s) {
      // Row row0 + i starts (row0 + i) * cols floats in, shift = that mod 4 floats after the start of
      // its first aligned float4; this thread reads the float4 col places later and keeps the floats
      // at positions 4 col + k (k = 0..3) from shift up to shift + cols: the row's own.
      const std::size_t first_float = row0 * cols;
      const std::size_t position = 4 * col;
      auto load = [&](std::size_t i) {
        const std::size_t unit = (first_float + i * cols) / 4 + col;
        if (4 * unit + 4 <= total) return units[unit];
        // The matrix's last float4 runs past its end: read what is there one float at a time.
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (4 * unit < total) v.x = src[4 * unit];
        if (4 * unit + 1 < total) v.y = src[4 * unit + 1];
        if (4 * unit + 2 < total) v.z = src[4 * unit + 2];
        return v;
      };
      auto add_row = [&](std::size_t i, float4 v) {
        const std::size_t shift = (first_float + i * cols) % 4;
        auto own = [&](unsigned int k, float x) {
          return position + k >= shift && position + k < shift + cols ? x : 0.0f;
        };
        add(make_float4(own(0, v.x), own(1, v.y), own(2, v.z), own(3, v.w)));
      };
      if (row0 + PATCH_ROWS <= rows) {
        float4 v[PATCH_ROWS];
#pragma unroll
        for (unsigned int i = 0; i < PATCH_ROWS; ++i) v[i] = load(i);
#pragma unroll
        for (unsigned int i = 0; i < PATCH_ROWS; ++i) add_row(i, v[i]);
      } else {
        for (std::size_t i = 0; row0 + i < rows; ++i) add_row(i, load(i));  // the ragged last band
      }
    } else {
      const Unit* p = units + row0 * width + col;
      if (row0 + PATCH_ROWS <= rows) {
        // A whole patch: every load is issued before the first add, PATCH_ROWS of them in flight.
        Unit v[PATCH_ROWS];
#pragma unroll
        for (unsigned int i = 0; i < PATCH_ROWS; ++i) v[i] = p[i * width];
#pragma unroll
        for (unsigned int i = 0; i < PATCH_ROWS; ++i) add_unit(v[i]);
      } else {
        for (std::size_t row = row0; row < rows; ++row, p += width) add_unit(*p);  // the ragged last band
      }
    }
    col += col_step;
    band += band_step;
    if (col >= width) {
      col -= width;
      ++band;
    }
  }

  sum = block_reduce<BLOCK_DIM>(Sum{}, sum);
  combine_block_results<BLOCK_DIM>(Sum{}, sum, dst, block_results, blocks_done);
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

namespace {
RowReads row_reads(const float* in, MatrixShape shape) {
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0) return RowReads::floats;
  return shape.cols % 4 == 0 ? RowReads::float4s : RowReads::masked_float4s;
}

/// Columns per band of rows, as the kernel counts them.
template <RowReads READS>
std::size_t columns(MatrixShape shape) {
  if constexpr (READS == RowReads::float4s) return shape.cols / 4;
  else if constexpr (READS == RowReads::masked_float4s) return (shape.cols + 2) / 4 + 1;
  else return shape.cols;
}

/// The READS kernel's patches: bands of PATCH_ROWS rows times the columns of a band.
template <RowReads READS>
std::size_t patches(MatrixShape shape) {
  return ceil_div<std::size_t>(shape.rows, ColumnsLaunch<READS>::PATCH_ROWS) * columns<READS>(shape);
}

/// Blocks of the READS kernel for @p shape: as many as the GPU holds at once (asked of the runtime:
/// registers decide it), fewer for a small matrix.
template <RowReads READS>
unsigned int columns_grid(MatrixShape shape) {
  constexpr unsigned int block = ColumnsLaunch<READS>::BLOCK_DIM;
  static int per_sm = 0;  // the kernel's registers do not change: ask once
  if (per_sm == 0)
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reductionOuterColumns<READS>, block, 0));
  const std::size_t resident = static_cast<std::size_t>(current_gpu_shape().sm_count) * static_cast<std::size_t>(per_sm);
  const std::size_t wanted = ceil_div<std::size_t>(patches<READS>(shape), block);
  return static_cast<unsigned int>(std::max<std::size_t>(1, std::min(resident, wanted)));
}

/// The longest chain of roundings of the READS kernel: a thread's serial sum over its patches (two
/// more for the four floats of a float4), 5 shuffle levels and log2(warps) more per block, then the
/// last block's strided loop over the block results and its own shuffles.
template <RowReads READS>
std::size_t rounding_depth(MatrixShape shape) {
  using L = ColumnsLaunch<READS>;
  const std::size_t grid = columns_grid<READS>(shape);
  const std::size_t per_thread =
      ceil_div<std::size_t>(patches<READS>(shape), grid * L::BLOCK_DIM) * L::PATCH_ROWS * (READS == RowReads::floats ? 1 : 3);
  return per_thread + 2 * (5 + 5) + ceil_div<std::size_t>(grid, L::BLOCK_DIM);
}
}  // namespace

std::size_t outer_columns_scratch_bytes(MatrixShape) {
  // Room for the largest grid: the smallest blocks' (the float4 paths'), as many as fit an SM.
  const GpuShape gpu = current_gpu_shape();
  return MATRIX_RESULTS_OFFSET + sizeof(float) * static_cast<std::size_t>(gpu.sm_count) *
                                     (gpu.max_threads_per_sm / ColumnsLaunch<RowReads::float4s>::BLOCK_DIM);
}

std::size_t outer_columns_rounding_depth(MatrixShape shape) {
  // The input's alignment decides the path, and it is not known here: the longest of the three.
  return std::max({rounding_depth<RowReads::float4s>(shape), rounding_depth<RowReads::masked_float4s>(shape),
                   rounding_depth<RowReads::floats>(shape)});
}

PassLaunch reduction_outer_columns_pass(const float* in, MatrixShape shape, float* out, void* scratch) {
  auto* blocks_done = static_cast<unsigned int*>(scratch);
  auto* block_results = reinterpret_cast<float*>(static_cast<char*>(scratch) + MATRIX_RESULTS_OFFSET);
  // A grid the size of the GPU (fewer blocks for a small matrix): every block stays resident, and each
  // thread takes patch after patch, a whole grid's worth apart.
  auto launch = [&](auto reads) {
    constexpr RowReads READS = decltype(reads)::value;
    constexpr unsigned int block = ColumnsLaunch<READS>::BLOCK_DIM;
    const unsigned int grid = columns_grid<READS>(shape);
    reductionOuterColumns<READS><<<grid, block>>>(in, shape.rows, shape.cols, out, block_results, blocks_done);
    CUDA_CHECK_LAUNCH();
    return PassLaunch{grid, 1, block, 1, sizeof(float) * (block / 32) + sizeof(bool)};
  };
  switch (row_reads(in, shape)) {
    case RowReads::float4s: return launch(std::integral_constant<RowReads, RowReads::float4s>{});
    case RowReads::masked_float4s: return launch(std::integral_constant<RowReads, RowReads::masked_float4s>{});
    case RowReads::floats: break;
  }
  return launch(std::integral_constant<RowReads, RowReads::floats>{});
}

}  // namespace pmpp::ch10
