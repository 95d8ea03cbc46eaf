/// @file cudnn_baseline.hpp
/// @brief The library baseline for chapter 7: the same 2D convolution through cuDNN. Plain C++ (no
/// cuDNN types here), so the side-by-side program compiles the same with or without cuDNN.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "ch07_convolution/library_baseline.hpp"

namespace pmpp::ch07 {

/// True when this build found cuDNN at configure time (PMPP_HAVE_CUDNN).
bool cudnn_available();
/// "cuDNN 9.19.0" (the library loaded at run time), or why there is none in this build.
std::string cudnn_description();

/// One cuDNN forward convolution, set up once for one problem so that only the call is timed:
/// - fp32 tensors and fp32 arithmetic with CUDNN_FMA_MATH, so no tensor-core (TF32) kernel runs;
/// - CUDNN_CROSS_CORRELATION: cuDNN's name for the un-flipped filter every stage uses;
/// - zero padding r on each side, stride 1: output size equals input size, ghost cells are zero;
/// - the fastest algorithm cudnnFindConvolutionForwardAlgorithmEx measures on the buffers of the
///   first run() (so call run() once before timing it), with its workspace.
class CudnnConvolution : public LibraryConvolution {
 public:
  /// Throws std::runtime_error if cuDNN is not available or refuses the problem.
  CudnnConvolution(int width, int height, int radius);
  ~CudnnConvolution() override;
  CudnnConvolution(const CudnnConvolution&) = delete;
  CudnnConvolution& operator=(const CudnnConvolution&) = delete;

  /// Enqueue out = in (*) filter on the default stream; all three are device pointers.
  void run(const float* in, const float* filter, float* out) override;
  /// "cuDNN 9.19.0, algorithm IMPLICIT_PRECOMP_GEMM (...), no workspace, FMA math (no TF32)".
  std::string details() const override;
  /// The algorithm cuDNN measured fastest, e.g. "IMPLICIT_PRECOMP_GEMM" (after the first run()).
  std::string algorithm() const;
  std::size_t workspace_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pmpp::ch07
