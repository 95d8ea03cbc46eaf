/// @file packed_wgmma.cuh
/// @brief Stage 08's instruction, `wgmma.mma_async` m64nNk8 for TF32 with A from registers, at the six
/// widths its two half-rings take (N = 32 to 72: half of 8(2r + 1) columns for r = 4..8), each the plain
/// PTX a student can look up.
///
/// One instruction adds a 64 x 8 A times an 8 x N B to the warpgroup's 64 x N accumulators. A comes from
/// registers, four TF32 values a thread in the m16n8k8 fragment layout (lane l, g = l / 4, t = l % 4:
/// rows 16w + g and 16w + g + 8, columns t and t + 4, of warp w's 16 rows); B comes from shared memory
/// through a matrix descriptor. The accumulators are laid out as in ch05's wgmma.cuh: for each 8-column
/// block j, d[4j], d[4j+1] at row 16w + g, columns 8j + 2t and 8j + 2t + 1, d[4j+2], d[4j+3] eight rows
/// down. The product is always added (scale-d = 1); the stage zeroes accumulators itself.
#pragma once

#include <cstdint>

#include "pmpp/wgmma_sync.cuh"

namespace pmpp::ch07 {

/// d += A B, asynchronously (defined after wgmma_commit and wgmma_wait). Specialised below for each N.
template <int N>
struct PackedWgmma;

// One specialisation: N, the accumulators' registers in the PTX string, then A's four registers and B's
// descriptor, then the accumulators as "+f" operands. Where wgmma does not exist the body traps (the
// launcher never runs it there).
#ifdef PMPP_HAVE_WGMMA
#define PMPP_PACKED_WGMMA_ASM(N, D_REGS, A_B_REGS, ...)                                                                \
  asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k8.f32.tf32.tf32 {" D_REGS "}, " A_B_REGS ", 1, 1, 1;\n"        \
               : __VA_ARGS__                                                                                           \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b))
#else
#define PMPP_PACKED_WGMMA_ASM(N, D_REGS, A_B_REGS, ...) ((void)d, (void)a, (void)b, __trap())
#endif
#define PMPP_PACKED_WGMMA(N, D_REGS, A_B_REGS, ...)                                                                    \
  template <>                                                                                                          \
  struct PackedWgmma<N> {                                                                                              \
    static __device__ __forceinline__ void add(float (&d)[N / 2], const std::uint32_t (&a)[4], std::uint64_t b) {      \
      PMPP_PACKED_WGMMA_ASM(N, D_REGS, A_B_REGS, __VA_ARGS__);                                                         \
    }                                                                                                                  \
  };
// The N / 2 accumulators as "+f" operands, one 8-column block (4 a thread) at a time.
#define PMPP_ACC4(j) "+f"(d[4 * j]), "+f"(d[4 * j + 1]), "+f"(d[4 * j + 2]), "+f"(d[4 * j + 3])
PMPP_PACKED_WGMMA(32, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15",
                  "{%16, %17, %18, %19}, %20",
                  PMPP_ACC4(0), PMPP_ACC4(1), PMPP_ACC4(2), PMPP_ACC4(3))
PMPP_PACKED_WGMMA(40, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                  "%16, %17, %18, %19",
                  "{%20, %21, %22, %23}, %24",
                  PMPP_ACC4(0), PMPP_ACC4(1), PMPP_ACC4(2), PMPP_ACC4(3), PMPP_ACC4(4))
PMPP_PACKED_WGMMA(48, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                  "%16, %17, %18, %19, %20, %21, %22, %23",
                  "{%24, %25, %26, %27}, %28",
                  PMPP_ACC4(0), PMPP_ACC4(1), PMPP_ACC4(2), PMPP_ACC4(3), PMPP_ACC4(4), PMPP_ACC4(5))
PMPP_PACKED_WGMMA(56, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27",
                  "{%28, %29, %30, %31}, %32",
                  PMPP_ACC4(0), PMPP_ACC4(1), PMPP_ACC4(2), PMPP_ACC4(3), PMPP_ACC4(4), PMPP_ACC4(5), PMPP_ACC4(6))
PMPP_PACKED_WGMMA(64, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31",
                  "{%32, %33, %34, %35}, %36",
                  PMPP_ACC4(0), PMPP_ACC4(1), PMPP_ACC4(2), PMPP_ACC4(3), PMPP_ACC4(4), PMPP_ACC4(5), PMPP_ACC4(6),
                  PMPP_ACC4(7))
PMPP_PACKED_WGMMA(72, "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                  "%32, %33, %34, %35",
                  "{%36, %37, %38, %39}, %40",
                  PMPP_ACC4(0), PMPP_ACC4(1), PMPP_ACC4(2), PMPP_ACC4(3), PMPP_ACC4(4), PMPP_ACC4(5), PMPP_ACC4(6),
                  PMPP_ACC4(7), PMPP_ACC4(8))

#undef PMPP_ACC4
#undef PMPP_PACKED_WGMMA
#undef PMPP_PACKED_WGMMA_ASM

}  // namespace pmpp::ch07
