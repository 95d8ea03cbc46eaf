// The chapter's stage table: drivers and tests iterate over it, so adding a stage is one row here.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/launch_config.hpp"

namespace pmpp::ch05 {

void require_valid(const MatmulArgs& a, const char* launcher) {
  auto in_range = [](int v) { return v >= 1 && v <= MAX_DIM; };
  if (!in_range(a.M) || !in_range(a.N) || !in_range(a.K))
    throw std::invalid_argument(std::string(launcher) + ": M, N and K must be in [1, " + std::to_string(MAX_DIM) +
                                "], got M=" + std::to_string(a.M) + " N=" + std::to_string(a.N) +
                                " K=" + std::to_string(a.K));
  if (a.A == nullptr || a.B == nullptr || a.C == nullptr)
    throw std::invalid_argument(std::string(launcher) + ": A, B and C must be device pointers, got a null one");
}

bool float4_operands(const MatmulArgs& a) {
  const auto aligned16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return a.N % 4 == 0 && a.K % 4 == 0 && aligned16(a.A) && aligned16(a.B) && aligned16(a.C);
}

namespace {
const std::vector<Stage> kStages = {
    {"01_naive", "one thread per element of C", "PMPP sec. 3.4, Fig 3.11", {}, matmul_naive,
     [](int) { return naive_op_per_byte(); }, naive_warp_accesses,
     "the model counts every load as global traffic, but a warp's A loads are broadcasts and L1/L2 serve "
     "the K-fold re-reads of each row and column",
     "-", no_bank_conflicts, "FP32", &FP32_ROUNDING, nullptr},
    {"02_tiled", "shared-memory tiles, one output per thread", "PMPP sec. 5.4-5.5, Fig 5.9 and 5.13", {16, 32},
     matmul_tiled, [](int tile) { return tiled_op_per_byte(tile); }, tiled_warp_accesses,
     "each tile of A and B is loaded once per block; the K/TILE_WIDTH re-reads of a tile by other blocks "
     "mostly hit L2",
     "per k a warp reads one or two words of Ads, each shared by a row of lanes (broadcasts), and consecutive "
     "words of a row of Bds; the tiles are stored a row of consecutive words at a time",
     no_bank_conflicts, "FP32", &FP32_ROUNDING, nullptr},
    {"03_register_tiled", "128x128 tiles, 8x8 outputs per thread in registers, float4 loads, double-buffered",
     "beyond PMPP: sec. 6.3's thread coarsening in two dimensions", {}, matmul_register_tiled,
     [](int) { return register_tiled_op_per_byte(RegisterTiling::TILE_M, RegisterTiling::TILE_N); },
     register_tiled_warp_accesses,
     "global traffic is now small; shared-memory reads and FFMA issue bound the kernel",
     "per k a warp reads 2 float4s of As (broadcasts) and 256 consecutive bytes of Bs (two wavefronts); "
     "A_PAD puts the transposed stores of A's two k-quads 16 banks apart",
     no_bank_conflicts, "FP32", &FP32_ROUNDING, nullptr},
    {"04_warp_tiled", "128x256 tiles in warp tiles of 64x64, 16x8 outputs per lane, K slices of 16",
     "beyond PMPP: stage 03 organized around warps", {}, matmul_warp_tiled,
     [](int) { return register_tiled_op_per_byte(WarpTiling::TILE_M, WarpTiling::TILE_N); },
     warp_tiled_warp_accesses,
     "as stage 03: DRAM and L2 traffic are small next to the arithmetic; FFMA issue bounds the kernel",
     "per float4 a warp reads 4 neighbouring float4s of As or 8 of Bs, each shared by several lanes "
     "(broadcasts); the transposed stores of a k-quad of 32 A rows land in 32 banks",
     no_bank_conflicts, "FP32", &FP32_ROUNDING, nullptr},
    {"05_async_copy", "stage 04's tiles, K slices of 32 copied by cp.async into two shared buffers",
     "beyond PMPP: asynchronous copies, compute capability 8.0 and later", {}, matmul_async_copy,
     [](int) { return register_tiled_op_per_byte(AsyncCopyTiling<32>::TILE_M, AsyncCopyTiling<32>::TILE_N); },
     async_copy_warp_accesses,
     "as stage 04: FFMA issue bounds the kernel; the copies skip the registers, and the counters count "
     "them as LDGSTS instructions, not as global loads",
     "per float4 a warp reads one float4 of each of 4 rows of the A slice, swizzled into different banks, or "
     "8 neighbouring float4s of a B row (broadcasts); cp.async writes whole 16-byte chunks",
     async_copy_bank_conflicts, "FP32", &FP32_ROUNDING, nullptr},
    {"06_tf32_tensor_cores", "TF32 tensor cores (mma.sync m16n8k8), 128x256 tiles, 4 cp.async buffers",
     "beyond PMPP: tensor cores, compute capability 8.0 and later", {}, matmul_tf32,
     [](int) { return register_tiled_op_per_byte(Tf32Tiling::TILE_M, Tf32Tiling::TILE_N); }, tf32_warp_accesses,
     "the kernel is bound by the tensor cores' issue and by shared-memory bandwidth (each fragment float "
     "feeds 8 or 16 multiply-adds), not by DRAM; copies are LDGSTS, not global loads",
     "per k-step a warp reads A fragments as 8 rows x 4 k and B fragments as 4 k x 8 columns; rows padded "
     "by 4 floats (A) and 8 (B) put the 32 lanes in 32 banks",
     async_copy_bank_conflicts, "TF32", &TF32_ROUNDING, tf32_unavailable},
    {"07_3xtf32", "3xTF32: big and small TF32 parts, three products per tile, FP32-accurate",
     "beyond PMPP: FP32 accuracy from TF32 tensor cores", {}, matmul_3xtf32,
     [](int) { return register_tiled_op_per_byte(Split3Tiling::TILE_M, Split3Tiling::TILE_N); },
     split_tf32_warp_accesses,
     "three mmas per tile triple the tensor work of stage 06; the split and the float adds run beside "
     "them on the FP32 units",
     "as stage 06: padded rows, fragment loads in 32 banks; each loaded float is split once and used by "
     "4 or 8 tiles",
     async_copy_bank_conflicts, "3xTF32", &SPLIT_TF32_ROUNDING, split_tf32_unavailable},
    {"08_wgmma_3xtf32", "3xTF32 on Hopper's wgmma: operands split once by a pre-pass, 128x128 tiles, 3 buffers",
     "beyond PMPP: Hopper's warpgroup MMA, code for sm_90a", {}, matmul_wgmma_3xtf32,
     // Each k brings the big and the small part of TILE_M + TILE_N floats: half stage 07's OP/B.
     [](int) { return register_tiled_op_per_byte(WgmmaTiling::TILE_M, WgmmaTiling::TILE_N) / 2; },
     wgmma_warp_accesses,
     "the tensor cores read their operands from shared memory themselves; the pre-pass adds a read of A "
     "and B and a write of twice their size, and copies are LDGSTS, not global loads",
     "the tensor cores read 128-byte swizzled rows; each cp.async quarter-warp writes one row's 8 chunks "
     "to 8 different 16-byte bank groups",
     no_bank_conflicts, "3xTF32", &SPLIT_TF32_ROUNDING, wgmma_3xtf32_unavailable},
    {"09_tma_wgmma_tf32", "TF32 on wgmma, 128x256 tiles, slices copied by the TMA for a copy warp, 4 buffers",
     "beyond PMPP: Hopper's Tensor Memory Accelerator and warp specialization, code for sm_90a", {},
     matmul_tma_wgmma_tf32,
     [](int) { return register_tiled_op_per_byte(TmaWgmmaTiling::TILE_M, TmaWgmmaTiling::TILE_N); },
     tma_wgmma_warp_accesses,
     "the TMA copies whole boxes (no thread loads), and the tensor cores read them from shared memory; the "
     "pre-pass adds a read and a write of B",
     "the TMA writes each slice 128-byte swizzled, the layout the tensor cores read without conflicts",
     no_bank_conflicts, "TF32", &TF32_CUT_A_ROUNDING, tma_wgmma_tf32_unavailable},
};
}  // namespace

const std::vector<Stage>& stages() { return kStages; }

const Stage* find_stage(std::string_view id) { return find_by_id(kStages, id); }

int effective_tile(const Stage& stage, int requested) {
  if (stage.tiles.empty()) return 0;
  return requested != 0 ? requested : stage.tiles.front();
}

}  // namespace pmpp::ch05
