// The text's analysis as code: arithmetic intensity per stage (sections 5.1 and 5.4) and how one warp's
// accesses map onto 32-byte sectors (section 6.1), so that tests can check the numbers and programs
// can print them next to what they measured.
#include <cstdint>
#include <set>
#include <string>

#include "ch05_matmul/matmul.hpp"

namespace pmpp::ch05 {

double flops(int M, int N, int K) { return 2.0 * M * N * K; }

double compulsory_bytes(int M, int N, int K) {
  return sizeof(float) * (static_cast<double>(M) * K + static_cast<double>(K) * N + static_cast<double>(M) * N);
}

double naive_op_per_byte() { return 2.0 / (2 * sizeof(float)); }

//! [tiled_op_per_byte]
double tiled_op_per_byte(int tile_width) {
  const double t = tile_width;
  return 2 * t * t * t / (2 * t * t * sizeof(float));
}
//! [tiled_op_per_byte]

double register_tiled_op_per_byte(int tile_m, int tile_n) {
  return 2.0 * tile_m * tile_n / (sizeof(float) * (static_cast<double>(tile_m) + tile_n));
}

double memory_bound_gflops(double dram_gb_per_s, double op_per_byte) { return dram_gb_per_s * op_per_byte; }

// ---- Warp footprints --------------------------------------------------------------------------------

std::string WarpAccess::verdict() const {
  if (used_fraction >= 1.0) return "coalesced";
  // Lanes share addresses: at least four lanes per distinct float, so the few sectors serve them all.
  if (4 * distinct_elements * 4 <= 32 * bytes_per_lane) return "broadcast";
  return "partly coalesced";
}

WarpAccess warp_access(std::string access, std::string index, int bytes_per_lane,
                       const std::function<std::int64_t(int lane)>& element_of_lane) {
  std::set<std::int64_t> words, sectors;
  for (int lane = 0; lane < 32; ++lane) {
    const std::int64_t first_byte = element_of_lane(lane) * 4;
    for (std::int64_t b = first_byte; b < first_byte + bytes_per_lane; b += 4) {
      words.insert(b / 4);
      sectors.insert(b / 32);
    }
  }
  WarpAccess w{std::move(access), std::move(index), bytes_per_lane, static_cast<int>(words.size()),
               static_cast<int>(sectors.size()), 0};
  w.used_fraction = 4.0 * w.distinct_elements / (32.0 * w.sectors);
  return w;
}

// Each function below mirrors its kernel's index arithmetic for warp 0 of block (0, 0) at k = 0.

std::vector<WarpAccess> naive_warp_accesses(int, int N, int K) {
  const int bx = NAIVE_BLOCK_DIM;  // lanes 0..15 have threadIdx.y = 0, lanes 16..31 have 1
  return {
      warp_access("A load", "A[row*K + k]", 4, [&](int l) { return std::int64_t{l / bx} * K; }),
      warp_access("B load", "B[k*N + col]", 4, [&](int l) { return std::int64_t{l % bx}; }),
      warp_access("C store", "C[row*N + col]", 4, [&](int l) { return std::int64_t{l / bx} * N + l % bx; }),
  };
}

std::vector<WarpAccess> tiled_warp_accesses(int tile, int N, int K) {
  const int t = tile;  // lane l has threadIdx.x = l % t, threadIdx.y = l / t
  return {
      warp_access("A load", "A[row*K + ph*TILE_WIDTH + tx]", 4,
                  [&](int l) { return std::int64_t{l / t} * K + l % t; }),
      warp_access("B load", "B[(ph*TILE_WIDTH + ty)*N + col]", 4,
                  [&](int l) { return std::int64_t{l / t} * N + l % t; }),
      warp_access("C store", "C[row*N + col]", 4, [&](int l) { return std::int64_t{l / t} * N + l % t; }),
  };
}

std::vector<WarpAccess> register_tiled_warp_accesses(int, int N, int K) {
  using RT = RegisterTiling;
  const int a_per_row = RT::TILE_K / 4, b_per_row = RT::TILE_N / 4, threads_x = RT::TILE_N / RT::THREAD_N;
  auto a_first = [&](int l) { return std::int64_t{l / a_per_row} * K + (l % a_per_row) * 4; };
  auto b_first = [&](int l) { return std::int64_t{l / b_per_row} * N + (l % b_per_row) * 4; };
  auto c_first = [&](int l) { return std::int64_t{l / threads_x} * 4 * N + (l % threads_x) * 4; };
  if (N % 4 == 0 && K % 4 == 0)  // the launcher's float4 path (operands from cudaMalloc are aligned)
    return {
        warp_access("A load", "float4 A[aRow*K + k0 + aK]", 16, a_first),
        warp_access("B load", "float4 B[(k0 + bK)*N + bCol]", 16, b_first),
        warp_access("C store", "float4 C[row*N + col]", 16, c_first),
    };
  // Otherwise each float4 becomes four scalar accesses; the first of the four stands for all.
  return {
      warp_access("A load", "A[aRow*K + k0 + aK + j] (scalar)", 4, a_first),
      warp_access("B load", "B[(k0 + bK)*N + bCol + j] (scalar)", 4, b_first),
      warp_access("C store", "C[row*N + col + j] (scalar)", 4, c_first),
  };
}

std::vector<WarpAccess> warp_tiled_warp_accesses(int, int N, int K) {
  using WT = WarpTiling;
  const int lanes_n = 32 / WT::LANES_M;
  // Lane l copies A row l, k 0..3 (a k-quad of 32 rows); B row 0, columns 4l..4l+3. Lane l of warp 0
  // stores rows (l / lanes_n) * 4 + i, columns (l % lanes_n) * 4 + j * 4 * lanes_n.
  auto a_first = [&](int l) { return std::int64_t{l} * K; };
  auto b_first = [&](int l) { return std::int64_t{l} * 4; };
  auto c_first = [&](int l) { return std::int64_t{l / lanes_n} * 4 * N + (l % lanes_n) * 4; };
  if (N % 4 == 0 && K % 4 == 0)
    return {
        warp_access("A load", "float4 A[(row0 + lane)*K + k0 + 4q]", 16, a_first),
        warp_access("B load", "float4 B[(k0 + kb)*N + col0 + 4*lane]", 16, b_first),
        warp_access("C store", "float4 C[row*N + col]", 16, c_first),
    };
  return {
      warp_access("A load", "A[(row0 + lane)*K + k0 + 4q + j] (scalar)", 4, a_first),
      warp_access("B load", "B[(k0 + kb)*N + col0 + 4*lane + j] (scalar)", 4, b_first),
      warp_access("C store", "C[row*N + col + j] (scalar)", 4, c_first),
  };
}

std::vector<WarpAccess> async_copy_warp_accesses(int, int N, int K) {
  using AT = AsyncCopyTiling<32>;
  const int quads = AT::TILE_K / 4, lanes_n = 32 / AT::LANES_M;
  // Thread c copies chunk c % quads of A row c / quads (scalar: float c % TILE_K of row c / TILE_K) and
  // chunk c of B row 0 (scalar: float c); C is stored as in stage 04.
  auto c_first = [&](int l) { return std::int64_t{l / lanes_n} * 4 * N + (l % lanes_n) * 4; };
  if (N % 4 == 0 && K % 4 == 0)
    return {
        warp_access("A copy", "cp.async A[(row0 + c/8)*K + k0 + 4(c%8)]", 16,
                    [&](int l) { return std::int64_t{l / quads} * K + (l % quads) * 4; }),
        warp_access("B copy", "cp.async B[(k0 + kb)*N + col0 + 4*lane]", 16,
                    [&](int l) { return std::int64_t{l} * 4; }),
        warp_access("C store", "float4 C[row*N + col]", 16, c_first),
    };
  return {
      warp_access("A copy", "cp.async A[(row0 + c/32)*K + k0 + c%32] (scalar)", 4,
                  [&](int l) { return std::int64_t{l / AT::TILE_K} * K + l % AT::TILE_K; }),
      warp_access("B copy", "cp.async B[(k0 + kb)*N + col0 + lane] (scalar)", 4,
                  [&](int l) { return std::int64_t{l}; }),
      warp_access("C store", "C[row*N + col + j] (scalar)", 4, c_first),
  };
}

namespace {
// Stages 06 and 07: thread c copies chunk c % chunks of A row c / chunks (chunks = TILE_K / 4, or TILE_K
// floats when scalar) and chunk c of B row 0; lane l stores two columns 2(l % 4) of fragment row l / 4.
template <class Shape>
std::vector<WarpAccess> tensor_core_warp_accesses(int N, int K) {
  const int quads = Shape::TILE_K / 4;
  auto c_first = [&](int l) { return std::int64_t{l / 4} * N + (l % 4) * 2; };
  if (N % 4 == 0 && K % 4 == 0)
    return {
        warp_access("A copy", "cp.async A[(row0 + c/" + std::to_string(quads) + ")*K + k0 + 4(c%" +
                                  std::to_string(quads) + ")]",
                    16, [&](int l) { return std::int64_t{l / quads} * K + (l % quads) * 4; }),
        warp_access("B copy", "cp.async B[(k0 + kb)*N + col0 + 4*lane]", 16,
                    [&](int l) { return std::int64_t{l} * 4; }),
        warp_access("C store", "float2 C[(row0 + l/4)*N + col0 + 2(l%4)]", 8, c_first),
    };
  const int k = Shape::TILE_K;
  return {
      warp_access("A copy", "cp.async A[(row0 + c/" + std::to_string(k) + ")*K + k0 + c%" + std::to_string(k) +
                                "] (scalar)",
                  4, [&](int l) { return std::int64_t{l / k} * K + l % k; }),
      warp_access("B copy", "cp.async B[(k0 + kb)*N + col0 + lane] (scalar)", 4,
                  [&](int l) { return std::int64_t{l}; }),
      warp_access("C store", "C[(row0 + l/4)*N + col0 + 2(l%4) + j] (scalar)", 4, c_first),
  };
}
}  // namespace

std::vector<WarpAccess> tf32_warp_accesses(int, int N, int K) { return tensor_core_warp_accesses<Tf32Tiling>(N, K); }

std::vector<WarpAccess> split_tf32_warp_accesses(int, int N, int K) {
  return tensor_core_warp_accesses<Split3Tiling>(N, K);
}

namespace {
/// The wgmma stages' store of C from the accumulators: lane l holds two neighbouring columns of row l / 4.
WarpAccess warpgroup_c_store(int N) {
  return warp_access("C store", N % 2 == 0 ? "float2 C[(row0 + l/4)*N + col0 + 2(l%4)]"
                                           : "C[(row0 + l/4)*N + col0 + 2(l%4) + j] (scalar)",
                     N % 2 == 0 ? 8 : 4, [&](int l) { return std::int64_t{l / 4} * N + (l % 4) * 2; });
}
}  // namespace

std::vector<WarpAccess> wgmma_warp_accesses(int, int N, int K) {
  // Thread c copies 16-byte chunk c % 8 of row c / 8 of a split part; the parts are padded, so every copy
  // moves 16 aligned bytes whatever N and K are. C is stored as in stages 06 and 07.
  const std::int64_t Kp = (K + WgmmaTiling::TILE_K - 1) / WgmmaTiling::TILE_K * std::int64_t{WgmmaTiling::TILE_K};
  const auto chunk_of_lane = [&](int l) { return l / 8 * Kp + l % 8 * 4; };
  return {
      warp_access("A copy", "cp.async A_big[(row0 + c/8)*Kp + k0 + 4(c%8)]", 16, chunk_of_lane),
      warp_access("B copy", "cp.async Bt_big[(col0 + c/8)*Kp + k0 + 4(c%8)]", 16, chunk_of_lane),
      warpgroup_c_store(N),
  };
}

std::vector<WarpAccess> tma_wgmma_warp_accesses(int, int N, int) {
  // The TMA copies the slices, so no lane of the main kernel loads A or B (nothing for the counters'
  // sectors per load request); the lanes' own accesses are the pre-pass's
  // (32 x 32 blocks of B through shared memory: lane l reads column n0 + l of a row of B and writes k0 + l
  // of a row of B transposed) and the store of C, as in stage 08.
  const auto consecutive = [](int l) { return std::int64_t{l}; };
  return {
      warp_access("pre-pass B read", "pre-pass B[(k0 + y)*N + n0 + l]", 4, consecutive),
      warp_access("pre-pass Bt store", "pre-pass Bt[(n0 + y)*Kp + k0 + l]", 4, consecutive),
      warpgroup_c_store(N),
  };
}

double sectors_per_load(const std::vector<WarpAccess>& accesses) {
  double sectors = 0;
  int loads = 0;
  for (const WarpAccess& w : accesses)
    if (w.access.find("load") != std::string::npos) sectors += w.sectors, ++loads;
  return loads ? sectors / loads : -1.0;
}

long long no_bank_conflicts(int, int) { return 0; }

long long async_copy_bank_conflicts(int N, int K) { return N % 4 == 0 && K % 4 == 0 ? 0 : -1; }

}  // namespace pmpp::ch05
