// =================================================================================================
// 2D matrix sum, "outer_columns" strategy (beyond the source): one thread per tall, thin patch, one launch
//
// What it is:  the outer idea (one thread, many elements, no barrier inside its patch) with the patch
//              turned on its side: a thread sums 16 rows of one column (of one float4 when every row
//              starts on a 16-byte boundary), so at every step the 32 lanes of a warp read 32
//              neighbouring columns, coalesced, and each thread's sum is still a spatial patch. The grid
//              holds as many blocks as the GPU runs at once; each thread takes patch after patch, a
//              grid's worth apart. Then, in the same launch, the blocks combine their threads' sums with
//              shuffles and the last block to finish combines the blocks' (block_combine.cuh, as stage
//              06 does).
// Changed:     outer's patch is 16 x 16 and its lanes start 64 bytes apart; outer_coalesced reads
//              coalesced but sums elements a pass-width apart. Here both hold: coalesced reads and
//              spatial patches. And where the host-driven strategies launch pass after pass, the later
//              ones far too small to fill the GPU, this one is a single launch whose grid is sized to
//              the GPU, not to the matrix: coarsening stops where the GPU is full.
// Limitation:  measured on an H100 (L2 evicted, medians, one run): 0.0950 ms for 8192^2 (84% of peak
//              DRAM, 3.45x inner) and 0.1453 ms for 8191 x 12289 (83%), short of the 90% we aimed for.
//              In the same run a kernel that only reads the same bytes (the "limit: read once" row)
//              took 0.0887 ms (90.2%) and 0.1305 ms (92.0%): at 8192^2 the 90% is the ceiling itself.
//              Of the 6.3 us this strategy loses to it there, the last block's combine is about 2 us,
//              as in stage 06; the rest we have not pinned down. Odd widths cost more (11% over the
//              read): rows that do not start on 16-byte boundaries are read one float at a time, four
//              times the load instructions, and Nsight Compute shows warps waiting for the load/store
//              queue (lg_throttle).
// =================================================================================================
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ch10_reduction/block_combine.cuh"
#include "ch10_reduction/matrix_sum.hpp"
#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/probe.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/math.hpp"

namespace pmpp::ch10 {

// ---- Constants ----------------------------------------------------------------------------------

constexpr unsigned int PATCH_ROWS = MATRIX_COLUMN_PATCH_ROWS;  // a patch: PATCH_ROWS rows of one column
// Threads per block, measured on an H100 (8192^2 and 8191 x 12289): 256 when a thread reads float4s,
// 1024 when it reads single floats.
template <bool VECTOR_IO>
constexpr unsigned int COLUMNS_BLOCK_DIM = VECTOR_IO ? 256 : 1024;

// ---- Kernel -------------------------------------------------------------------------------------

//! [kernel]
// VECTOR_IO: every row starts on a 16-byte boundary, so a "column" is four floats wide and moves as
// one float4; otherwise it is one float wide.
// No minimum of blocks per SM in the launch bounds: a whole patch's PATCH_ROWS loads in flight need
// their registers more than the SM needs more threads (the grid is sized to what fits).
template <bool VECTOR_IO>
__global__ void __launch_bounds__(COLUMNS_BLOCK_DIM<VECTOR_IO>)
    reductionOuterColumns(const float* __restrict__ src, std::size_t rows, std::size_t cols, float* __restrict__ dst,
                          float* __restrict__ block_results, unsigned int* __restrict__ blocks_done) {
  using Unit = std::conditional_t<VECTOR_IO, float4, float>;
  constexpr unsigned int BLOCK_DIM = COLUMNS_BLOCK_DIM<VECTOR_IO>;
  const Unit* units = reinterpret_cast<const Unit*>(src);
  const std::size_t width = cols / (sizeof(Unit) / sizeof(float));  // units per row
  // Patch p covers unit column p % width of rows (p / width) * PATCH_ROWS onwards: consecutive threads
  // take neighbouring columns of the same rows, so at every step a warp reads consecutive units.
  const std::size_t bands = ceil_div<std::size_t>(rows, PATCH_ROWS);
  const std::size_t grid_threads = static_cast<std::size_t>(gridDim.x) * BLOCK_DIM;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * BLOCK_DIM + threadIdx.x;
  std::size_t band = first / width, col = first % width;
  // The grid-wide stride in whole bands and leftover columns: two divisions per thread, not per patch.
  const std::size_t band_step = grid_threads / width, col_step = grid_threads % width;

  float sum = 0.0f;
  auto add = [&sum](Unit v) {
    if constexpr (VECTOR_IO) sum += (v.x + v.y) + (v.z + v.w);
    else sum += v;
  };
  while (band < bands) {
    const std::size_t row0 = band * PATCH_ROWS;
    const Unit* p = units + row0 * width + col;
    if (row0 + PATCH_ROWS <= rows) {
      // A whole patch: every load is issued before the first add, PATCH_ROWS of them in flight.
      Unit v[PATCH_ROWS];
#pragma unroll
      for (unsigned int i = 0; i < PATCH_ROWS; ++i) v[i] = p[i * width];
#pragma unroll
      for (unsigned int i = 0; i < PATCH_ROWS; ++i) add(v[i]);
    } else {
      for (std::size_t row = row0; row < rows; ++row, p += width) add(*p);  // the ragged last band
    }
    col += col_step;
    band += band_step;
    if (col >= width) {
      col -= width;
      ++band;
    }
  }

  NoProbe probe;
  sum = block_reduce<BLOCK_DIM>(Sum{}, sum, probe);
  combine_block_results<BLOCK_DIM>(Sum{}, sum, dst, block_results, blocks_done, probe);
}
//! [kernel]

// ---- Launcher -----------------------------------------------------------------------------------

namespace {
bool vector_io(const float* in, MatrixShape shape) {
  return shape.cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0;
}

/// Blocks of the VECTOR_IO kernel for @p patches patches: as many as the GPU holds at once (asked of the
/// runtime: registers decide it), fewer for a small matrix.
template <bool VECTOR_IO>
unsigned int columns_grid(std::size_t patches) {
  static int per_sm = 0;  // the kernel's registers do not change: ask once
  if (per_sm == 0)
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reductionOuterColumns<VECTOR_IO>,
                                                             COLUMNS_BLOCK_DIM<VECTOR_IO>, 0));
  const std::size_t resident = static_cast<std::size_t>(current_gpu_shape().sm_count) * static_cast<std::size_t>(per_sm);
  const std::size_t wanted = ceil_div<std::size_t>(patches, COLUMNS_BLOCK_DIM<VECTOR_IO>);
  return static_cast<unsigned int>(std::max<std::size_t>(1, std::min(resident, wanted)));
}
}  // namespace

std::size_t outer_columns_scratch_bytes(MatrixShape) {
  // Room for the largest grid: the smaller blocks' (the float4 path's).
  const GpuShape gpu = current_gpu_shape();
  return MATRIX_RESULTS_OFFSET +
         sizeof(float) * static_cast<std::size_t>(gpu.sm_count) * (gpu.max_threads_per_sm / COLUMNS_BLOCK_DIM<true>);
}

std::size_t outer_columns_rounding_depth(MatrixShape shape) {
  // The longer of the two paths: single floats, the more patches per thread. A thread's serial sum
  // over its patches, 5 shuffle levels and log2(warps) more per block, then the last block's strided
  // loop over the block results and its own shuffles.
  const std::size_t patches = ceil_div<std::size_t>(shape.rows, PATCH_ROWS) * shape.cols;
  const unsigned int block = COLUMNS_BLOCK_DIM<false>;
  const std::size_t grid = columns_grid<false>(patches);
  const std::size_t per_thread = ceil_div<std::size_t>(patches, grid * block) * PATCH_ROWS;
  return per_thread + 2 * (5 + 5) + ceil_div<std::size_t>(grid, COLUMNS_BLOCK_DIM<true>);
}

PassLaunch reduction_outer_columns_pass(const float* in, MatrixShape shape, float* out, void* scratch) {
  auto* blocks_done = static_cast<unsigned int*>(scratch);
  auto* block_results = reinterpret_cast<float*>(static_cast<char*>(scratch) + MATRIX_RESULTS_OFFSET);
  // A grid the size of the GPU (fewer blocks for a small matrix): every block stays resident, and each
  // thread takes patch after patch, a whole grid's worth apart.
  auto launch = [&](auto vector) {
    constexpr bool VECTOR_IO = decltype(vector)::value;
    constexpr unsigned int block = COLUMNS_BLOCK_DIM<VECTOR_IO>;
    const std::size_t patches = ceil_div<std::size_t>(shape.rows, PATCH_ROWS) * (shape.cols / (VECTOR_IO ? 4 : 1));
    const unsigned int grid = columns_grid<VECTOR_IO>(patches);
    reductionOuterColumns<VECTOR_IO><<<grid, block>>>(in, shape.rows, shape.cols, out, block_results, blocks_done);
    CUDA_CHECK_LAUNCH();
    return PassLaunch{grid, 1, block, 1, sizeof(float) * (block / 32) + sizeof(bool)};
  };
  return vector_io(in, shape) ? launch(std::true_type{}) : launch(std::false_type{});
}

}  // namespace pmpp::ch10
