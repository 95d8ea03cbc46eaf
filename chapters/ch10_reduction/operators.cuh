/// @file operators.cuh
/// @brief The reduction operators of section 10.1 as device function objects, the atomic update that
/// accumulates a block's result with any of them, and the switch from the run-time Op to the type.
///
/// An operator is a type with `identity()` and `operator()(a, b)`; a kernel templated on it is
/// compiled once per operator, so the add in the inner loop is a single instruction, not a switch.
/// `operator()` takes the kernel's element type T: float, or the counting build's CountedFloat.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

#include "ch10_reduction/reduction.hpp"

namespace pmpp::ch10 {

//! [operators]
struct Sum {
  __host__ __device__ static float identity() { return 0.0f; }
  template <class T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct Max {
  __host__ __device__ static float identity() { return -INFINITY; }  // max(-inf, v) = v for every v
  template <class T>
  __device__ T operator()(T a, T b) const { return fmaxf(a, b); }
};
struct Min {
  __host__ __device__ static float identity() { return INFINITY; }
  template <class T>
  __device__ T operator()(T a, T b) const { return fminf(a, b); }
};
struct Product {
  __host__ __device__ static float identity() { return 1.0f; }
  template <class T>
  __device__ T operator()(T a, T b) const { return a * b; }
};
//! [operators]

/// *address = *address (op) value, atomically. Hardware has a float atomicAdd; every other operator
/// goes through the compare-and-swap loop: read, combine, and write back only if no other block
/// wrote in between, else retry with what that block wrote.
template <class Operator>
__device__ void atomic_combine(Operator op, float* address, float value) {
  unsigned int* bits = reinterpret_cast<unsigned int*>(address);
  unsigned int seen = *bits, expected;
  do {
    expected = seen;
    seen = atomicCAS(bits, expected, __float_as_uint(op(__uint_as_float(expected), value)));
  } while (seen != expected);
}
__device__ inline void atomic_combine(Sum, float* address, float value) { atomicAdd(address, value); }

/// Call @p body with an object of the operator type that @p op names (host side, in launchers).
template <class Body>
void with_operator(Op op, Body&& body) {
  switch (op) {
    case Op::sum: body(Sum{}); return;
    case Op::max: body(Max{}); return;
    case Op::min: body(Min{}); return;
    case Op::product: body(Product{}); return;
  }
}

}  // namespace pmpp::ch10
