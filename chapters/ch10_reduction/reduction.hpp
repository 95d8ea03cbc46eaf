/// @file reduction.hpp
/// @brief Chapter 10, reduction: the stage table, the launchers, the CPU reference and the text's
/// analysis. Plain C++ (no kernel syntax), so tests and drivers are ordinary .cpp files.
///
/// Conventions shared by every stage:
/// - the input is `n` floats in device memory, the result one float in device memory;
/// - the operator is sum, max, min or product, each with its identity (section 10.1); reducing
///   n = 0 elements gives the identity;
/// - a block's *segment* is the run of input it reduces (2 * blockDim.x elements in the text);
/// - indices are 64-bit wherever n may exceed 2^31 (stages 04 to 06).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmpp::ch10 {

// ---- Operators (section 10.1) -------------------------------------------------------------------

/// The reduction operators the stages support: associative and commutative, each with an identity.
enum class Op { sum, max, min, product };

/// "sum", "max", "min", "product".
const char* op_name(Op op);
/// Every operator's name, in the order of the enum (for --op).
std::vector<std::string> op_names();
/// The operator with this name; throws pmpp::UsageError for anything else.
Op parse_op(std::string_view name);
/// 0 for sum, -infinity for max, +infinity for min, 1 for product.
double identity(Op op);
/// a (op) b in double: the CPU reference's arithmetic.
double apply(Op op, double a, double b);

// ---- The text's constants -----------------------------------------------------------------------

/// Largest block CUDA allows; the single-block stages (01-03) take two elements per thread.
inline constexpr unsigned MAX_BLOCK_DIM = 1024;
/// Largest n stages 01-03 accept: one block of 1024 threads, two elements each (section 10.3).
inline constexpr std::size_t SINGLE_BLOCK_MAX_N = 2 * MAX_BLOCK_DIM;
/// Threads per block of stages 04 and 05 (the text's BLOCK_DIM).
inline constexpr unsigned BLOCK_DIM = 1024;
/// Stage 05's coarsening (Fig 10.15): each thread combines 2 * COARSE_FACTOR elements before the tree,
/// so a block's segment is COARSE_FACTOR * 2 * BLOCK_DIM elements.
inline constexpr unsigned COARSE_FACTOR = 8;
/// Threads per block of stage 06: 1024, two blocks per SM. Measured on an H100 against 256 and 512 (same
/// grid-stride loop, same unrolling), 1024 ran 2% faster at 2^28 floats (0.345 ms against 0.352 ms).
inline constexpr unsigned SINGLE_PASS_BLOCK_DIM = 1024;
/// 16-byte loads each thread of stage 06 has in flight per round of its grid-stride loop.
inline constexpr unsigned SINGLE_PASS_UNROLL = 4;
/// Stage 06's scratch: the block counter at offset 0, the block results from this offset on (a
/// 128-byte segment of their own, so a warp reading 32 results touches one segment, not two).
inline constexpr std::size_t SINGLE_PASS_RESULTS_OFFSET = 128;


// ---- Launch description -------------------------------------------------------------------------

/// What sizes a launch: the GPU's SM count and thread capacity (stage 06 sizes its grid to them).
struct GpuShape {
  int sm_count = 132;             ///< default: an H100 SXM, for the analysis printed without a GPU
  int max_threads_per_sm = 2048;
};
/// The current device's shape (needs a GPU).
GpuShape current_gpu_shape();

/// What a launcher launched: the programs print it next to the time.
struct LaunchConfig {
  unsigned grid = 0;               ///< blocks of the main kernel (0: nothing to reduce)
  unsigned block = 0;              ///< threads per block
  std::size_t shared_bytes = 0;    ///< static shared memory per block
  int launches = 0;                ///< kernels enqueued, counting the output reset
  /// Longest chain of float roundings any input goes through on its way to the result: the k of
  /// the error bound gamma_k * sum|x| (see sum_error_bound).
  std::size_t rounding_depth = 0;
  std::string to_string() const;
};

/// Threads a single-block stage launches for n elements: the power of two >= n / 2 (1 for n <= 2),
/// so that the halving tree of Fig 10.6 / 10.9 covers every element.
unsigned single_block_threads(std::size_t n);
/// The launch of a single-block stage (01-03) for n elements.
LaunchConfig single_block_plan(std::size_t n, std::size_t shared_bytes);

// ---- Instrumentation (see probe.cuh) -------------------------------------------------------------

/// What an instrumented kernel counts, section 10.4-10.5's way; kept in kProbeSlots copies (indexed by
/// block) so that the counting atomics do not all queue on one address.
struct ProbeCounters {
  unsigned long long active_lanes = 0;     ///< lanes applying the operator to two operands of input data
  unsigned long long combine_warps = 0;    ///< warp executions of an add with at least one such lane
  unsigned long long global_segments = 0;  ///< distinct 128-byte segments per warp-wide global access
  unsigned long long global_accesses = 0;  ///< warp-wide global loads and stores with an active lane
};
inline constexpr int kProbeSlots = 64;

/// One operator application, recorded by the GPU thread that made it (--trace).
struct TraceRecord {
  unsigned step;    ///< 1 for the thread's first add, 2 for its second, ...
  unsigned block;
  unsigned thread;
  long long dst;    ///< the element (or shared-memory slot) that receives the result
  long long src;    ///< the element (or slot) added into it
};

/// Device pointers an instrumented launch writes to.
struct ProbeBuffers {
  ProbeCounters* counters = nullptr;  ///< kProbeSlots entries, zeroed by the caller
  TraceRecord* trace = nullptr;       ///< nullptr: count only
  unsigned trace_capacity = 0;
  unsigned* trace_count = nullptr;    ///< zeroed by the caller; may end above capacity (records dropped)
};

/// One reduction in device memory.
struct ReduceArgs {
  float* input = nullptr;   ///< device, n floats; stages 01 and 02 overwrite it (in-place trees)
  float* output = nullptr;  ///< device, one float
  std::size_t n = 0;
  Op op = Op::sum;
  /// Device scratch of Stage::scratch_bytes(n, op) bytes, zeroed once after allocation; the stages
  /// that use it leave it zeroed again (stage 06's block counter), so it can be reused.
  void* scratch = nullptr;
  /// Non-null: launch the instrumented build of the kernel, which counts into these buffers.
  const ProbeBuffers* probe = nullptr;
};

// ---- The text's analysis (analysis.cpp) --------------------------------------------------------

/// Sections 10.4 and 10.5's quantities for one run.
struct ResourceCounts {
  unsigned long long committed = 0;  ///< results of the operator on input data (active lanes at the add)
  unsigned long long consumed = 0;   ///< 32 lanes for each warp execution of an add with an active lane
  unsigned long long requests = 0;   ///< global-memory requests: distinct 128-byte segments per warp access
  unsigned long long accesses = 0;   ///< warp-wide global-memory instructions with an active lane
  /// Execution-resource efficiency, committed / consumed (section 10.4).
  double efficiency() const { return consumed ? static_cast<double>(committed) / consumed : 0.0; }
  bool operator==(const ResourceCounts& o) const {
    return committed == o.committed && consumed == o.consumed && requests == o.requests && accesses == o.accesses;
  }
  bool operator!=(const ResourceCounts& o) const { return !(*this == o); }
};

/// The text's closed forms for one stage, where it gives them (N a power of two, N >= 64).
struct TextFigures {
  std::optional<unsigned long long> committed, consumed, requests;
};

/// Section 10.4, Fig 10.6 (simple kernel): N/64 * (32+16+8+4+2+1) + N/128 + ... + 1 committed results.
unsigned long long text_simple_committed(std::size_t N);
/// Section 10.4, Fig 10.6: (N/64 * 5 + N/128 + ... + 1) * 32 consumed lanes, as printed (736 for
/// N = 256). The printed formula is short by N/64 * 32: see simple_counts().
unsigned long long text_simple_consumed(std::size_t N);
/// Section 10.5, Fig 10.6: (N/64 * 5 * 2 + N/64 + N/128 + ... + 1) * 3 requests (141, 1149).
unsigned long long text_simple_requests(std::size_t N);
/// Section 10.4, Fig 10.9 (convergent kernel): (N/64 + N/128 + ... + 1 + 5) * 32 consumed lanes (384).
unsigned long long text_convergent_consumed(std::size_t N);
/// Section 10.5, Fig 10.9: ((N/64 + N/128 + ... + 1) + 5) * 3 requests (36, 204).
unsigned long long text_convergent_requests(std::size_t N);
/// Section 10.6, Fig 10.11 (shared memory): N/32 + 1 requests (9 for N = 256).
unsigned long long text_shared_memory_requests(std::size_t N);
/// True where the closed forms above apply: N a power of two and at least 64.
bool text_formulas_apply(std::size_t N);

/// The text's rules applied to each kernel exactly as written here, for any n: a warp consumes 32
/// lanes at an add if any lane adds; a warp access costs one request per distinct 128-byte segment
/// its active lanes touch (arrays start 128-byte aligned, as cudaMalloc's do). The instrumented
/// kernels count the same quantities on the GPU; tests require the two to agree.
ResourceCounts simple_counts(std::size_t n, const LaunchConfig& config);
ResourceCounts convergent_counts(std::size_t n, const LaunchConfig& config);
ResourceCounts shared_memory_counts(std::size_t n, const LaunchConfig& config);
ResourceCounts segmented_counts(std::size_t n, const LaunchConfig& config);
ResourceCounts coarsened_counts(std::size_t n, const LaunchConfig& config);
ResourceCounts single_pass_counts(std::size_t n, const LaunchConfig& config);

// ---- Stages ----------------------------------------------------------------------------------------

/// One row of the chapter: everything a driver or a test needs to run a stage.
struct Stage {
  const char* id;       ///< "01_simple": the file name and the program's suffix
  const char* title;    ///< one line for tables
  const char* figure;   ///< the text's figure this stage mirrors
  std::size_t max_n;    ///< SINGLE_BLOCK_MAX_N for the single-block stages
  std::size_t default_n;
  bool in_place;        ///< overwrites its input (the text's first two kernels)
  bool all_operators;   ///< sum, max, min and product; otherwise sum only, as in the text
  bool traceable;       ///< --trace shows its steps (single block, one add per thread per step)
  /// The launch the stage makes for n elements on a GPU of this shape; launch() uses the same.
  LaunchConfig (*plan)(std::size_t n, const GpuShape& gpu);
  /// Enqueue the reduction on the default stream; checks the launch; does not synchronize.
  LaunchConfig (*launch)(const ReduceArgs& args);
  /// Scratch the stage needs (ReduceArgs::scratch); nullptr: none.
  std::size_t (*scratch_bytes)(std::size_t n, Op op);
  /// The text's rules counted for this kernel; nullptr for the library baseline.
  ResourceCounts (*model)(std::size_t n, const LaunchConfig& config);
  /// The text's closed forms for this stage, where it gives any.
  TextFigures (*text)(std::size_t n);
  /// Why the text's consumed-lanes figure differs from the count, when it does.
  const char* consumed_note;
  /// Why the text's request figure differs from the count, when it does.
  const char* requests_note;
  /// What --trace's indices mean for this stage.
  const char* trace_legend;
};

/// Every stage, in the text's order, then the stage beyond the text.
const std::vector<Stage>& stages();
/// The stage with this id, or nullptr.
const Stage* find_stage(std::string_view id);
/// cub::DeviceReduce as a stage-shaped row (the library baseline of ch10_reduction).
const Stage& cub_baseline();

// ---- Stage launchers (one per .cu file) -------------------------------------------------------------

/// Fig 10.6 (01_simple.cu): owner-computes, stride doubling, in place. Sum only; n <= 2048.
LaunchConfig simple_sum_reduction(const ReduceArgs& args);
LaunchConfig simple_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.9 (02_convergent.cu): owners adjacent, stride halving, in place. Sum only; n <= 2048.
LaunchConfig convergent_sum_reduction(const ReduceArgs& args);
LaunchConfig convergent_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.11 (03_shared_memory.cu): partial sums in shared memory; input untouched. n <= 2048.
LaunchConfig shared_memory_sum_reduction(const ReduceArgs& args);
LaunchConfig shared_memory_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.13 (04_segmented.cu): one segment per block, one atomicAdd per block. Any n.
LaunchConfig segmented_sum_reduction(const ReduceArgs& args);
LaunchConfig segmented_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.15 (05_coarsened.cu): COARSE_FACTOR segments' worth per block; any operator; any n.
LaunchConfig coarsened_reduction(const ReduceArgs& args);
LaunchConfig coarsened_plan(std::size_t n, const GpuShape& gpu);
/// Beyond the text (06_single_pass_float4.cu): a grid sized to the GPU, 16-byte loads, warp
/// shuffles, and the last block to finish combines the block results: one launch; any operator.
LaunchConfig single_pass_reduction(const ReduceArgs& args);
LaunchConfig single_pass_plan(std::size_t n, const GpuShape& gpu);
std::size_t single_pass_scratch_bytes(std::size_t n, Op op);
/// The library baseline (cub_baseline.cu): cub::DeviceReduce (Sum, Max, Min, Reduce with multiplies).
LaunchConfig cub_reduction(const ReduceArgs& args);
std::size_t cub_scratch_bytes(std::size_t n, Op op);

/// The preconditions of stages 01-03: n <= SINGLE_BLOCK_MAX_N and the sum operator; throws
/// std::invalid_argument naming @p stage_id otherwise.
void require_single_block_sum(const ReduceArgs& args, const char* stage_id);

/// Write the operator's identity to *output (one tiny kernel): the reset before blocks accumulate
/// into it, and the whole answer for n = 0 (accumulator.cu).
void reset_to_identity(float* output, Op op);

// ---- Instrumented runs (measure.cpp) -----------------------------------------------------------------

/// Run @p stage's instrumented build once on @p args (args.probe is ignored) and return what the GPU
/// counted. In-place stages overwrite args.input as usual. @p config receives the launch.
ResourceCounts measure_counts(const Stage& stage, ReduceArgs args, LaunchConfig* config = nullptr);
/// Run @p stage's instrumented build once and return every operator application it recorded,
/// sorted by step, then block, then thread. Throws if more than @p capacity were made.
std::vector<TraceRecord> record_trace(const Stage& stage, ReduceArgs args, unsigned capacity = 4096);

// ---- CPU reference (reference.cpp) ------------------------------------------------------------------

/// The checker: the sequential loop of Fig 10.2, in double, chunks spread over the CPU's cores.
double reduce_reference(const std::vector<float>& x, Op op);
/// sum |x_i| in double (the scale of a float sum's rounding error).
double sum_of_magnitudes(const std::vector<float>& x);
/// True when every x_i is an integer and sum |x_i| <= 2^24: then every partial sum, in any order,
/// is an integer a float holds exactly, so every stage must be bit-exact.
bool sum_is_exact_in_float(const std::vector<float>& x);
/// A bound on |float sum - exact sum| when no input goes through more than @p depth roundings:
/// gamma_depth * sum|x_i|, gamma_k = k u / (1 - k u), u = 2^-24 (Higham, Accuracy and Stability of
/// Numerical Algorithms, section 4.2).
double sum_error_bound(std::size_t depth, double sum_abs);

/// Which inputs a problem uses.
enum class InputKind {
  exact,   ///< sum: small integers with sum|x| <= 2^24; product: +-2^e; max/min: random floats
  floats,  ///< random floats in [-1, 1) (product: in [0.5, 2))
};
/// Seeded inputs for @p op that make a sharp check possible (see InputKind).
std::vector<float> make_inputs(std::size_t n, Op op, InputKind kind, std::uint64_t seed);
/// One line saying what make_inputs made and why the check is exact or how it is bounded.
std::string describe_inputs(std::size_t n, Op op, InputKind kind);

}  // namespace pmpp::ch10
