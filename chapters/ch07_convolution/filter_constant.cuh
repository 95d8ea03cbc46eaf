/// @file filter_constant.cuh
/// @brief What the stages from 02 on share, so that no stage copies it: the filter in `__constant__` memory
/// (section 7.3) and the run-time choice among kernels compiled for each FILTER_RADIUS.
///
/// The text makes FILTER_RADIUS a compile-time constant so that the filter's size is known to the
/// compiler (it must be, to declare a `__constant__` array and to unroll the tap loops). A program
/// that takes `--radius` therefore compiles one kernel per radius 1..MAX_FILTER_RADIUS and picks one
/// at run time: with_filter_radius() below.
///
/// Everything here sits in an anonymous namespace on purpose. Without relocatable device code
/// (-rdc), a `__constant__` variable is visible only inside its own translation unit: a kernel in
/// 03_tiled_halo.cu cannot read a filter uploaded by 02_constant_memory.cu. Each stage file therefore
/// gets its own F_c and its own upload, and the anonymous namespace makes that explicit instead of
/// leaving four same-named symbols to the linker.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "ch07_convolution/convolution.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch07 {
namespace {

/// Room for the largest filter. A kernel compiled for FILTER_RADIUS uses the first (2r+1)^2 values,
/// row-major: F_c[fRow * (2r+1) + fCol] is the text's F[fRow][fCol].
__constant__ float F_c[filter_dim(MAX_FILTER_RADIUS) * filter_dim(MAX_FILTER_RADIUS)];

void check_filter_radius(int radius) {
  if (radius < 1 || radius > MAX_FILTER_RADIUS)
    throw std::invalid_argument("filter radius " + std::to_string(radius) + " is outside the compiled range 1.." +
                                std::to_string(MAX_FILTER_RADIUS));
}

//! [upload]
/// Copy the (2r+1)^2 filter values from host memory into this translation unit's F_c.
/// cudaMemcpyToSymbol's kind must describe where the source is: host memory, so HostToDevice.
[[maybe_unused]] void upload_filter_to_constant_memory(const float* host_filter, int radius) {
  check_filter_radius(radius);
  const std::size_t bytes = sizeof(float) * filter_dim(radius) * filter_dim(radius);
  CUDA_CHECK(cudaMemcpyToSymbol(F_c, host_filter, bytes, 0, cudaMemcpyHostToDevice));
}
//! [upload]

template <class Body, int... Radius>
void dispatch_filter_radius(int radius, Body&& body, std::integer_sequence<int, Radius...>) {
  // Exactly one comparison matches (the range was checked); it calls body with r as a type.
  const bool matched = ((radius == Radius + 1 ? (body(std::integral_constant<int, Radius + 1>{}), true) : false) || ...);
  if (!matched) throw std::logic_error("filter radius dispatch found no kernel");
}

/// Call `body(std::integral_constant<int, r>{})` for r == @p radius, so that inside body
/// `decltype(r)::value` is a compile-time FILTER_RADIUS. Throws std::invalid_argument outside
/// 1..MAX_FILTER_RADIUS.
template <class Body>
[[maybe_unused]] void with_filter_radius(int radius, Body&& body) {
  check_filter_radius(radius);
  dispatch_filter_radius(radius, std::forward<Body>(body), std::make_integer_sequence<int, MAX_FILTER_RADIUS>{});
}

}  // namespace
}  // namespace pmpp::ch07
