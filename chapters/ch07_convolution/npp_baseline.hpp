/// @file npp_baseline.hpp
/// @brief The second library baseline for chapter 7: the same 2D convolution through NPP's
/// nppiFilter_32f_C1R, the image-processing call a user would reach for. Plain C++ (no NPP types).
#pragma once

#include <memory>
#include <string>

#include "ch07_convolution/library_baseline.hpp"
#include "ch07_convolution/npp_support.hpp"

namespace pmpp::ch07 {

/// One nppiFilter_32f_C1R call set up for one problem, matching the chapter's definition exactly:
/// - nppiFilter reads a window around every output pixel without testing the image's edges, so its
///   source is a copy of the image inside a border of r zeros on every side: the chapter's zero ghost
///   cells. (nppiFilterBorder would test the edges itself, but supports only NPP_BORDER_REPLICATE,
///   which repeats edge pixels instead of reading zeros.)
/// - NPP convolves (its coefficients are read in reverse order), so the filter goes in reversed
///   (npp_coefficients) and the anchor is the centre (r, r): together, the unflipped filter.
/// prepare() fills the bordered copy and the reversed filter; run() is the one NPP call, the part
/// a caller who keeps images bordered pays on every image.
/// The smallest radius NPP's row is run with. Its 3 x 3 and 5 x 5 filters (r = 1, 2) failed the
/// chapter's check on an H200 (NPP 13.0.1): wrong values in the last rows of an 8192 x 8192 image and
/// in every pixel of images one pixel wide, with or without a wider, aligned, padded border, where
/// every larger filter passed. Until that is understood, the row says so instead of failing.
inline constexpr int kNppMinRadius = 3;

class NppConvolution : public LibraryConvolution {
 public:
  /// Throws std::runtime_error if NPP is not available in this build, or @p radius < kNppMinRadius.
  NppConvolution(int width, int height, int radius);
  ~NppConvolution() override;
  NppConvolution(const NppConvolution&) = delete;
  NppConvolution& operator=(const NppConvolution&) = delete;

  void prepare(const float* in, const float* filter) override;
  void run(const float* in, const float* filter, float* out) override;
  std::string details() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pmpp::ch07
