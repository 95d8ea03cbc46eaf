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
///   source is a copy of the image inside a border of zeros: the chapter's zero ghost cells.
///   (nppiFilterBorder would test the edges itself, but supports only NPP_BORDER_REPLICATE, which
///   repeats edge pixels instead of reading zeros.)
/// - Its 3 x 3 and 5 x 5 filters do not read outside the region they are given, unlike the larger
///   ones: on an H100 and an H200 (NPP 13.0.1) every pixel within r of that region's edge came out
///   wrong, the rest right. So the region is the image with r pixels of its border on every side, the
///   source has 2r zeros around the image, and the output is that larger region, of which the image's
///   part is kept: (w + 2r) (h + 2r) outputs instead of w h, 0.05% more at 8192 x 8192 for r = 1.
/// - NPP convolves (its coefficients are read in reverse order), so the filter goes in reversed
///   (npp_coefficients) and the anchor is the centre (r, r): together, the unflipped filter.
/// prepare() fills the bordered copy and the reversed filter; run() is the one NPP call, the part
/// a caller who keeps images bordered pays on every image; collect() copies the image's part out.
class NppConvolution : public LibraryConvolution {
 public:
  /// Throws std::runtime_error if NPP is not available in this build.
  NppConvolution(int width, int height, int radius);
  ~NppConvolution() override;
  NppConvolution(const NppConvolution&) = delete;
  NppConvolution& operator=(const NppConvolution&) = delete;

  void prepare(const float* in, const float* filter) override;
  void run(const float* in, const float* filter, float* out) override;
  void collect(float* out) override;
  std::string details() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pmpp::ch07
