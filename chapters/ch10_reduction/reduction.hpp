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
/// Threads per block of stage 06: two blocks fill an SM of a GPU that holds 2048 threads per SM.
inline constexpr unsigned SINGLE_PASS_BLOCK_DIM = 1024;
/// 16-byte loads each thread of stage 06 has in flight per round of its grid-stride loop.
inline constexpr unsigned SINGLE_PASS_UNROLL = 4;
/// Stage 06's scratch: the block counter at offset 0, the block results from this offset on (a
/// 128-byte segment of their own, so a warp reading 32 results touches one segment, not two).
inline constexpr std::size_t SINGLE_PASS_RESULTS_OFFSET = 128;

// ---- Launch description -------------------------------------------------------------------------

/// What sizes a launch: the GPU's SM count and thread capacity (stage 06 sizes its grid to them).
/// The defaults are an H100 SXM's: the GPU the analysis assumes where there is none (kAssumedGpu).
struct GpuShape {
  int sm_count = 132;
  int max_threads_per_sm = 2048;
};
/// The default GpuShape in words, for output that plans a launch without a GPU.
inline constexpr const char* kAssumedGpu = "an H100 (132 SMs of 2048 threads)";
/// The current device's shape (needs a GPU).
GpuShape current_gpu_shape();

/// What a reduction launcher launched: the programs print it next to the time.
struct ReductionLaunch {
  unsigned grid = 0;               ///< blocks of the main kernel (0: nothing to reduce)
  unsigned block = 0;              ///< threads per block
  std::size_t shared_bytes = 0;    ///< static shared memory per block
  int launches = 0;                ///< kernels enqueued, counting the output reset
  /// Longest chain of float roundings any input goes through on its way to the result: the k of
  /// the error bound gamma_k * sum|x| (see sum_error_bound).
  std::size_t rounding_depth = 0;
  /// "grid 1 x block 8, shared 0 B, 1 launch"
  std::string to_string() const;
};

/// Threads a single-block stage launches for n elements: the power of two >= n / 2 (1 for n <= 2),
/// so that the halving tree of Fig 10.6 / 10.9 covers every element.
unsigned single_block_threads(std::size_t n);
/// The launch of a single-block stage (01-03) for n elements.
ReductionLaunch single_block_plan(std::size_t n, std::size_t shared_bytes);

// ---- The counting build (counted_float.cuh) ----------------------------------------------------------

/// What the counting build counts, section 10.4-10.5's way; kept in kCounterSlots copies (indexed by
/// block) so that the counting atomics do not all queue on one address.
struct Counters {
  unsigned long long active_lanes = 0;   ///< lanes active at an operator application (committed results)
  unsigned long long combine_warps = 0;  ///< warp executions of an operator application
  unsigned long long segments = 0;       ///< distinct 128-byte segments per warp-wide global access
  unsigned long long accesses = 0;       ///< warp-wide global loads, stores and atomics
  unsigned long long loads = 0;          ///< the loads among them
  unsigned long long load_sectors = 0;   ///< distinct 32-byte sectors per warp-wide global load
};
inline constexpr int kCounterSlots = 64;

/// One operator application, recorded by the GPU thread that made it (--trace).
struct TraceRecord {
  unsigned step;    ///< the k-th add its warp executed (see counted_float.cuh)
  unsigned block;
  unsigned thread;
  long long dst;    ///< the element (or shared-memory slot) that receives the result; -1: a register
  long long src;    ///< the element (or slot) added into it; -1: a register
};

/// Device memory a counted launch writes to, and what turns its addresses into indices.
struct CountingBuffers {
  Counters* counters = nullptr;     ///< kCounterSlots entries, zeroed by the caller
  TraceRecord* trace = nullptr;     ///< nullptr: count only
  unsigned trace_capacity = 0;
  unsigned* trace_count = nullptr;  ///< zeroed by the caller; may end above capacity (records dropped)
  unsigned* warp_steps = nullptr;   ///< one add counter per warp, zeroed by the caller (with trace)
  unsigned warp_step_capacity = 0;
  const float* input = nullptr;     ///< element 0 of the input: global addresses become indices
  unsigned shared_base = 0;         ///< offset of a block's first shared array (the runtime's reserve)
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
};

// ---- The text's analysis (analysis.cpp) --------------------------------------------------------

/// Sections 10.4 and 10.5's quantities for one run, and the sectors a profiler counts.
struct ResourceCounts {
  unsigned long long committed = 0;  ///< lanes active at an operator application (results committed)
  unsigned long long consumed = 0;   ///< 32 lanes for each warp execution of an operator application
  unsigned long long requests = 0;   ///< global-memory requests: distinct 128-byte segments per warp access
  unsigned long long accesses = 0;   ///< warp-wide global-memory instructions (loads, stores, atomics)
  unsigned long long loads = 0;      ///< the loads among them
  unsigned long long load_sectors = 0;  ///< distinct 32-byte sectors per warp-wide load
  /// Execution-resource efficiency, committed / consumed (section 10.4).
  double efficiency() const { return consumed ? static_cast<double>(committed) / consumed : 0.0; }
  /// 32-byte sectors per load instruction (what Nsight Compute reports as sectors per request).
  double sectors_per_load() const { return loads ? static_cast<double>(load_sectors) / loads : 0.0; }
  bool operator==(const ResourceCounts& o) const {
    return committed == o.committed && consumed == o.consumed && requests == o.requests &&
           accesses == o.accesses && loads == o.loads && load_sectors == o.load_sectors;
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

/// The text's rules applied to each kernel exactly as written here, for any n: every lane active at
/// an operator application commits a result, and its warp consumes 32 lanes; a warp access costs one
/// request per distinct 128-byte segment its active lanes touch (arrays start 128-byte aligned, as
/// cudaMalloc's do). The counting build counts the same quantities on the GPU; tests require the two
/// to agree.
ResourceCounts simple_counts(std::size_t n, const ReductionLaunch& launch);
ResourceCounts convergent_counts(std::size_t n, const ReductionLaunch& launch);
ResourceCounts shared_memory_counts(std::size_t n, const ReductionLaunch& launch);
ResourceCounts segmented_counts(std::size_t n, const ReductionLaunch& launch);
ResourceCounts coarsened_counts(std::size_t n, const ReductionLaunch& launch);
ResourceCounts single_pass_counts(std::size_t n, const ReductionLaunch& launch);

// ---- Stages ----------------------------------------------------------------------------------------

/// What a profiler needs to know about a stage beyond its counts (the "profile" table of the run record).
struct ProfileNotes {
  /// How a warp touches shared memory, in one line ("-": the stage uses none).
  const char* shared_access;
  /// The shared-memory bank conflicts that access predicts; -1: no shared memory.
  int bank_conflicts;
  /// Why hardware counters differ from the text's model, in one line.
  const char* counters;
};

/// One row of the chapter: everything a program, a test, the profiler or the book needs about a stage.
struct Stage {
  const char* id;       ///< "01_simple": the file name and the program's suffix
  const char* title;    ///< one line for tables
  const char* figure;   ///< the text's figure this stage mirrors
  std::size_t max_n;    ///< SINGLE_BLOCK_MAX_N for the single-block stages
  std::size_t default_n;
  bool in_place;        ///< overwrites its input (the text's first two kernels)
  bool all_operators;   ///< sum, max, min and product; otherwise sum only, as in the text
  bool traceable;       ///< --trace shows its steps (one block whose thread 0 adds in every iteration)
  bool sized_to_gpu;    ///< its grid depends on the GPU (planned for kAssumedGpu without one)
  /// The launch the stage makes for n elements on a GPU of this shape; launch() uses the same.
  ReductionLaunch (*plan)(std::size_t n, const GpuShape& gpu);
  /// Enqueue the reduction (the kernel on float) on the default stream; checks the launch; does not
  /// synchronize.
  ReductionLaunch (*launch)(const ReduceArgs& args);
  /// The same launch of the counting build (the kernel on CountedFloat), counting into @p buffers;
  /// nullptr for the library baseline.
  ReductionLaunch (*launch_counted)(const ReduceArgs& args, const CountingBuffers& buffers);
  /// Scratch the stage needs (ReduceArgs::scratch); nullptr: none.
  std::size_t (*scratch_bytes)(std::size_t n, Op op);
  /// The text's rules counted for this kernel; nullptr for the library baseline.
  ResourceCounts (*model)(std::size_t n, const ReductionLaunch& launch);
  /// The text's closed forms for this stage, where it gives any.
  TextFigures (*text)(std::size_t n);
  /// Why the text's consumed-lanes figure differs from the count, when it does.
  const char* consumed_note;
  /// Why the text's request figure differs from the count, when it does.
  const char* requests_note;
  /// What --trace's indices mean for this stage.
  const char* trace_legend;
  ProfileNotes profile;
};

/// Every stage, in the text's order, then the stage beyond the text.
const std::vector<Stage>& stages();
/// The stage with this id, or nullptr.
const Stage* find_stage(std::string_view id);
/// cub::DeviceReduce as a stage-shaped row (the library baseline every program runs).
const Stage& cub_baseline();

// ---- Stage launchers (one per .cu file) -------------------------------------------------------------

/// Fig 10.6 (01_simple.cu): owner-computes, stride doubling, in place. Sum only; n <= 2048.
ReductionLaunch simple_sum_reduction(const ReduceArgs& args);
ReductionLaunch simple_sum_reduction_counted(const ReduceArgs& args, const CountingBuffers& buffers);
ReductionLaunch simple_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.9 (02_convergent.cu): owners adjacent, stride halving, in place. Sum only; n <= 2048.
ReductionLaunch convergent_sum_reduction(const ReduceArgs& args);
ReductionLaunch convergent_sum_reduction_counted(const ReduceArgs& args, const CountingBuffers& buffers);
ReductionLaunch convergent_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.11 (03_shared_memory.cu): partial sums in shared memory; input untouched. n <= 2048.
ReductionLaunch shared_memory_sum_reduction(const ReduceArgs& args);
ReductionLaunch shared_memory_sum_reduction_counted(const ReduceArgs& args, const CountingBuffers& buffers);
ReductionLaunch shared_memory_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.13 (04_segmented.cu): one segment per block, one atomicAdd per block. Any n.
ReductionLaunch segmented_sum_reduction(const ReduceArgs& args);
ReductionLaunch segmented_sum_reduction_counted(const ReduceArgs& args, const CountingBuffers& buffers);
ReductionLaunch segmented_plan(std::size_t n, const GpuShape& gpu);
/// Fig 10.15 (05_coarsened.cu): COARSE_FACTOR segments' worth per block; any operator; any n.
ReductionLaunch coarsened_reduction(const ReduceArgs& args);
ReductionLaunch coarsened_reduction_counted(const ReduceArgs& args, const CountingBuffers& buffers);
ReductionLaunch coarsened_plan(std::size_t n, const GpuShape& gpu);
/// Beyond the text (06_single_pass_float4.cu): a grid sized to the GPU, 16-byte loads, warp
/// shuffles, and the last block to finish combines the block results: one launch; any operator.
ReductionLaunch single_pass_reduction(const ReduceArgs& args);
ReductionLaunch single_pass_reduction_counted(const ReduceArgs& args, const CountingBuffers& buffers);
ReductionLaunch single_pass_plan(std::size_t n, const GpuShape& gpu);
std::size_t single_pass_scratch_bytes(std::size_t n, Op op);
/// The library baseline (cub_baseline.cu): cub::DeviceReduce (Sum, Max, Min, Reduce with multiplies).
ReductionLaunch cub_reduction(const ReduceArgs& args);
std::size_t cub_scratch_bytes(std::size_t n, Op op);

/// The preconditions of stages 01-03: n <= SINGLE_BLOCK_MAX_N and the sum operator; throws
/// std::invalid_argument naming @p stage_id otherwise.
void require_single_block_sum(const ReduceArgs& args, const char* stage_id);
/// The precondition of the text's sum kernels (stages 01-04): the sum operator; throws
/// std::invalid_argument naming @p stage_id otherwise.
void require_sum(const ReduceArgs& args, const char* stage_id);

/// Write the operator's identity to *output (one tiny kernel): the reset before blocks accumulate
/// into it, and the whole answer for n = 0 (launch_helpers.cu).
void reset_to_identity(float* output, Op op);

// ---- Counted runs (measure.cpp) ----------------------------------------------------------------------

/// Run @p stage's counting build once on @p args and return what the GPU counted. In-place stages
/// overwrite args.input as usual. @p launch receives the launch.
ResourceCounts measure_counts(const Stage& stage, const ReduceArgs& args, ReductionLaunch* launch = nullptr);
/// Run @p stage's counting build once and return every operator application it recorded, sorted by
/// step, then block, then thread. Throws if more than @p capacity were made.
std::vector<TraceRecord> record_trace(const Stage& stage, const ReduceArgs& args, unsigned capacity = 4096);

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
