/// @file counted_float.cuh
/// @brief The counting build: each stage's kernel, unchanged, on a float that counts what the text counts.
///
/// Every stage's kernel is a template on its element type T, written as the text writes it.
/// The build that is checked and timed instantiates it with T = float: nothing else runs. The counting
/// build instantiates the same source with T = CountedFloat, a float (same 4 bytes, same layout) whose
/// operations count, one warp at a time, what sections 10.4 and 10.5 count:
/// - an operator application (`+=`, `+`, `*`, `fmaxf`, `fminf`): the warp's active lanes
///   (`__activemask()`) commit a result each, and the warp consumes 32 lanes;
/// - a read of a CountedFloat in global memory (a copy of it, or an operand) and a write to one: one
///   warp access, costing a request per distinct 128-byte segment its active lanes touch
///   (`__match_any_sync` on address / 128); loads also count their distinct 32-byte sectors;
/// - with a trace buffer, each active lane also records the two elements it combined.
/// Registers and shared memory cost no requests: only global memory is counted. A lane that adds the
/// identity (past the end of the input) is active at the add, and counts as the hardware runs it.
///
/// The counters are reached through a `__device__` variable. Without relocatable device code each .cu
/// file is its own program on the GPU, with its own copy of the variable, so each stage's .cu sets its
/// own (count_into) right before its counted launch.
///
/// What the counting relies on: the lanes that apply an operator together execute it together, which
/// holds where each add sits inside one `if` (the lanes that took the branch run it converged).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ch10_reduction/operators.cuh"
#include "ch10_reduction/reduction.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10 {

namespace {
/// This translation unit's counters (see the file's description).
__device__ CountingBuffers g_counting;

/// Make this .cu file's counted kernels count into @p buffers: call it before each counted launch.
inline void count_into(const CountingBuffers& buffers) {
  CUDA_CHECK(cudaMemcpyToSymbol(g_counting, &buffers, sizeof buffers));
}
}  // namespace

namespace counting {

enum class Access { load, store, atomic };

__device__ inline unsigned lane() { return threadIdx.x % 32; }  // the chapter's blocks are 1D
__device__ inline bool leads(unsigned group) { return lane() == static_cast<unsigned>(__ffs(group) - 1); }
__device__ inline Counters& slot() { return g_counting.counters[blockIdx.x % kCounterSlots]; }

/// The warp's active lanes make one access to @p address each (every lane passes its own).
__device__ inline void count_access(const void* address, Access kind) {
  if (g_counting.counters == nullptr) return;
  const unsigned active = __activemask();
  const auto bits = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(address));
  // Lanes in the same segment form one group; the lowest lane of each group counts it.
  const unsigned segments = __popc(__ballot_sync(active, leads(__match_any_sync(active, bits / 128))));
  const unsigned sectors = __popc(__ballot_sync(active, leads(__match_any_sync(active, bits / 32))));
  if (leads(active)) {
    ::atomicAdd(&slot().segments, static_cast<unsigned long long>(segments));
    ::atomicAdd(&slot().accesses, 1ull);
    if (kind == Access::load) {
      ::atomicAdd(&slot().loads, 1ull);
      ::atomicAdd(&slot().load_sectors, static_cast<unsigned long long>(sectors));
    }
  }
}

/// Where @p p points as an index: an element of the input, a slot of the block's shared array, or -1.
__device__ inline long long index_of(const void* p) {
  if (p == nullptr) return -1;
  if (__isGlobal(p)) return static_cast<const float*>(p) - g_counting.input;
  if (__isShared(p))
    return (static_cast<long long>(__cvta_generic_to_shared(p)) - g_counting.shared_base) /
           static_cast<long long>(sizeof(float));
  return -1;  // a register (local memory)
}

/// The warp's active lanes apply the operator once each: @p dst receives, @p src is added (nullptr for
/// values in registers).
__device__ inline void count_combine(const void* dst, const void* src) {
  if (g_counting.counters == nullptr) return;
  const unsigned active = __activemask();
  const unsigned leader = static_cast<unsigned>(__ffs(active) - 1);
  // The trace's step: how many adds this warp has executed, this one included. In the traceable
  // stages (one block of at most 32 threads, since --trace takes n <= 64) thread 0 adds in every
  // iteration, so the warp's k-th add is iteration k. A count per thread would not be: in stage 02
  // with n = 5, thread 1 adds first in iteration 2.
  unsigned step = 0;
  if (lane() == leader) {
    ::atomicAdd(&slot().active_lanes, static_cast<unsigned long long>(__popc(active)));
    ::atomicAdd(&slot().combine_warps, 1ull);
    const unsigned warp = blockIdx.x * ((blockDim.x + 31) / 32) + threadIdx.x / 32;
    if (g_counting.trace != nullptr && warp < g_counting.warp_step_capacity) step = ++g_counting.warp_steps[warp];
  }
  if (g_counting.trace == nullptr) return;
  step = ::__shfl_sync(active, step, static_cast<int>(leader));
  const unsigned k = ::atomicAdd(g_counting.trace_count, 1u);
  if (k < g_counting.trace_capacity)
    g_counting.trace[k] = TraceRecord{step, blockIdx.x, threadIdx.x, index_of(dst), index_of(src)};
}

/// A float whose reads, writes and operator applications are counted (see the file's description).
struct CountedFloat {
  float value;

  CountedFloat() = default;  // trivial, so that __shared__ arrays of it need no constructor
  __host__ __device__ CountedFloat(float v) : value(v) {}  // NOLINT: a value in a register, as 0.0f is
  __device__ CountedFloat(const CountedFloat& other) : value(load(other)) {}
  __device__ CountedFloat& operator=(const CountedFloat& other) {
    store(*this, load(other));
    return *this;
  }
  //! [counted_add]
  __device__ CountedFloat& operator+=(const CountedFloat& other) {
    const float sum = load(*this) + load(other);
    count_combine(this, &other);
    store(*this, sum);
    return *this;
  }

  /// x's value; one counted load if x is in global memory.
  __device__ static float load(const CountedFloat& x) {
    if (__isGlobal(&x)) count_access(&x, Access::load);
    return x.value;
  }
  /// x = v; one counted store if x is in global memory.
  __device__ static void store(CountedFloat& x, float v) {
    if (__isGlobal(&x)) count_access(&x, Access::store);
    x.value = v;
  }
  //! [counted_add]
};
static_assert(sizeof(CountedFloat) == sizeof(float), "a CountedFloat array must lie in memory as floats do");

/// The operators of operators.cuh on CountedFloat: one counted application each.
__device__ inline CountedFloat operator+(const CountedFloat& a, const CountedFloat& b) {
  const float result = CountedFloat::load(a) + CountedFloat::load(b);
  count_combine(&a, &b);
  return result;
}
__device__ inline CountedFloat operator*(const CountedFloat& a, const CountedFloat& b) {
  const float result = CountedFloat::load(a) * CountedFloat::load(b);
  count_combine(&a, &b);
  return result;
}
__device__ inline CountedFloat fmaxf(const CountedFloat& a, const CountedFloat& b) {
  const float result = ::fmaxf(CountedFloat::load(a), CountedFloat::load(b));
  count_combine(&a, &b);
  return result;
}
__device__ inline CountedFloat fminf(const CountedFloat& a, const CountedFloat& b) {
  const float result = ::fminf(CountedFloat::load(a), CountedFloat::load(b));
  count_combine(&a, &b);
  return result;
}

/// Four CountedFloats read or written as one 16-byte access (stage 06's float4 loads).
struct alignas(16) CountedFloat4 {
  CountedFloat x, y, z, w;

  CountedFloat4() = default;
  __device__ CountedFloat4(CountedFloat x_, CountedFloat y_, CountedFloat z_, CountedFloat w_)
      : x(x_), y(y_), z(z_), w(w_) {}
  __device__ CountedFloat4(const CountedFloat4& other) { copy(other); }
  __device__ CountedFloat4& operator=(const CountedFloat4& other) {
    copy(other);
    return *this;
  }

 private:
  __device__ void copy(const CountedFloat4& other) {
    if (__isGlobal(&other)) count_access(&other, Access::load);
    if (__isGlobal(this)) count_access(this, Access::store);
    x.value = other.x.value, y.value = other.y.value, z.value = other.z.value, w.value = other.w.value;
  }
};

/// The CUDA functions the kernels call, on CountedFloat: the memory they touch is counted, the
/// register exchange of a shuffle is not. They live in this namespace, next to CountedFloat, so that a
/// kernel's call finds them by its argument's type, and CUDA's own for a float.
__device__ inline CountedFloat __shfl_down_sync(unsigned mask, const CountedFloat& v, unsigned delta) {
  return ::__shfl_down_sync(mask, v.value, delta);
}
__device__ inline CountedFloat __ldcg(const CountedFloat* p) {
  count_access(p, Access::load);
  return ::__ldcg(&p->value);
}
__device__ inline CountedFloat atomicAdd(CountedFloat* address, const CountedFloat& v) {
  count_access(address, Access::atomic);
  return ::atomicAdd(&address->value, v.value);
}
/// operators.cuh's atomic update of a block's result into the output: one counted atomic access (its
/// compare-and-swap retries, if any, are not the text's adds).
template <class Operator>
__device__ void atomic_combine(Operator op, CountedFloat* address, const CountedFloat& v) {
  count_access(address, Access::atomic);
  ::pmpp::ch10::atomic_combine(op, &address->value, v.value);
}

}  // namespace counting

using counting::CountedFloat;
using counting::CountedFloat4;

/// The four-wide element stage 06 loads: float4 for float, CountedFloat4 for CountedFloat.
template <class T>
struct Packed4;
template <>
struct Packed4<float> {
  using type = float4;
};
template <>
struct Packed4<CountedFloat> {
  using type = CountedFloat4;
};

/// The input and output of a counted launch: the same device memory, seen as CountedFloats.
inline CountedFloat* counted(float* p) { return reinterpret_cast<CountedFloat*>(p); }

}  // namespace pmpp::ch10
