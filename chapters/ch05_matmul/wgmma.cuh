/// @file wgmma.cuh
/// @brief The Hopper instructions of stages 08 and 09, each the plain PTX a student can look up: the
/// warpgroup matrix multiply `wgmma.mma_async` for TF32 (m64n128k8, m64n256k8), the shared-memory
/// *matrix descriptor* it reads its operands through (the fences and waits that order it are in
/// pmpp/wgmma_sync.cuh).
///
/// A warpgroup is 4 consecutive warps (128 threads) starting at a warp index divisible by 4. One
/// `wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32` makes the warpgroup's 64 x 128 tile of C grow
/// by a 64 x 8 slice of A times an 8 x 128 slice of B. Unlike `mma.sync`, both operands are read straight
/// from shared memory (no fragments in registers), and the instruction is asynchronous: the warps go on
/// while the tensor cores work, and wait only when they need the result (wgmma_wait).
///
/// The accumulators stay in registers, 64 floats per thread, laid out like 16 `mma.sync` C fragments side
/// by side: warp w of the group holds rows 16w .. 16w + 15; lane l (g = l / 4, t = l % 4) holds, for
/// each 8-column block j = 0..15, d[4j], d[4j+1] at row 16w + g, columns 8j + 2t and 8j + 2t + 1, and
/// d[4j+2], d[4j+3] eight rows further down.
///
/// These instructions exist only in code compiled for sm_90a ("a": this architecture's own features,
/// which later GPUs do not promise to keep). Every other compilation of these functions traps; the
/// launchers of stages 08 and 09 never start their kernels there (wgmma_unavailable_here says why).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "pmpp/wgmma_sync.cuh"

namespace pmpp::ch05 {

//! [descriptor]
/// The descriptor of a K-major operand tile in shared memory, stored with the 128-byte swizzle: each row
/// of the tile holds 32 floats of K (128 bytes), rows follow each other, and within each group of 8 rows
/// the 16-byte chunk c of row r sits at chunk position c ^ r (so the 8 rows' chunk c lie in 8 different
/// bank groups). @p tile is the shared-memory address of the operand's first row, on a 1024-byte
/// boundary, plus 32 bytes per k-step of 8 floats into the row.
__device__ __forceinline__ std::uint64_t swizzled_tile_descriptor(std::uint32_t tile) {
  std::uint64_t d = (tile & 0x3FFFF) >> 4;  // bits 0-13: the start address, in 16-byte units
  d |= std::uint64_t{16 >> 4} << 16;         // bits 16-29: leading-dimension offset (unused with a swizzle)
  d |= std::uint64_t{1024 >> 4} << 32;       // bits 32-45: from one group of 8 rows to the next, 1024 bytes
  d |= std::uint64_t{1} << 62;               // bits 62-63: 1 = the 128-byte swizzle
  return d;
}
//! [descriptor]

/// The byte offset at which 16-byte chunk @p chunk (0..7) of row @p row of such a tile is stored.
__host__ __device__ constexpr int swizzled_offset(int row, int chunk) { return row * 128 + ((chunk ^ (row % 8)) << 4); }

//! [wgmma]
/// d (+)= A B for the warpgroup: A is 64 x 8 and B is 8 x 128, both described by swizzled_tile_descriptor
/// (B stored transposed, one row per column of B, so that it too is K-major: TF32 wgmma reads both
/// operands K-major). @p accumulate = 0 overwrites d, 1 adds to it. Asynchronous: d is defined only after
/// wgmma_commit and wgmma_wait.
__device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[64], std::uint64_t a, std::uint64_t b, int accumulate) {
#ifdef PMPP_HAVE_WGMMA
#define PMPP_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                   "+f"(d[i + 6]), "+f"(d[i + 7])
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32\n"
      "  {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n"
      "   %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,\n"
      "   %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,\n"
      "   %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},\n"
      "  %64, %65, accumulate, 1, 1;\n"  // the two 1s: A and B as they are (not negated)
      "}\n"
      : PMPP_D8(0), PMPP_D8(8), PMPP_D8(16), PMPP_D8(24), PMPP_D8(32), PMPP_D8(40), PMPP_D8(48), PMPP_D8(56)
      : "l"(a), "l"(b), "r"(accumulate));
#undef PMPP_D8
#else
  (void)d, (void)a, (void)b, (void)accumulate;
  __trap();
#endif
}
//! [wgmma]

/// The same for a 64 x 256 tile of C (stage 09): B is 8 x 256, and d holds 128 floats a thread, the
/// layout above continued over 32 blocks of 8 columns.
__device__ __forceinline__ void wgmma_m64n256k8_tf32(float (&d)[128], std::uint64_t a, std::uint64_t b, int accumulate) {
#ifdef PMPP_HAVE_WGMMA
#define PMPP_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                   "+f"(d[i + 6]), "+f"(d[i + 7])
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32\n"
      "  {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,\n"
      "   %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,\n"
      "   %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,\n"
      "   %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,\n"
      "   %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,\n"
      "   %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,\n"
      "   %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,\n"
      "   %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127},\n"
      "  %128, %129, accumulate, 1, 1;\n"
      "}\n"
      : PMPP_D8(0), PMPP_D8(8), PMPP_D8(16), PMPP_D8(24), PMPP_D8(32), PMPP_D8(40), PMPP_D8(48), PMPP_D8(56),
        PMPP_D8(64), PMPP_D8(72), PMPP_D8(80), PMPP_D8(88), PMPP_D8(96), PMPP_D8(104), PMPP_D8(112), PMPP_D8(120)
      : "l"(a), "l"(b), "r"(accumulate));
#undef PMPP_D8
#else
  (void)d, (void)a, (void)b, (void)accumulate;
  __trap();
#endif
}

/// Store a warpgroup's accumulators (the layout above, N / 2 columns wide) to C, whose M x N_C entries are
/// row-major: @p row0, @p col0 is where the warpgroup's tile starts. Entries past C's edges are not
/// written; with @p pairs (every row of C 8-byte aligned) neighbouring columns go as one float2.
template <int N>
__device__ __forceinline__ void store_warpgroup_tile(const float (&d)[N], float* C, int M, int N_C, std::int64_t row0,
                                                     std::int64_t col0, bool pairs) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x % 128 / 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int j = 0; j < N; j += 2) {
    const std::int64_t row = row0 + 16 * warp + g + 8 * (j / 2 % 2);
    const std::int64_t col = col0 + 8 * (j / 4) + 2 * t;
    if (row >= M || col >= N_C) continue;
    float* const dst = C + row * N_C + col;
    if (pairs && col + 1 < N_C) {
      *reinterpret_cast<float2*>(dst) = make_float2(d[j], d[j + 1]);
    } else {
      dst[0] = d[j];
      if (col + 1 < N_C) dst[1] = d[j + 1];
    }
  }
}

}  // namespace pmpp::ch05
