/// @file image_npp.hpp
/// @brief The image filter's library row: the same filter through NPP's nppiFilterBorder32f_8u_CnR
/// (n = 1 to 4 interleaved channels), the call a user filtering 8-bit pictures with float weights
/// would make. Plain C++ (no NPP types), so the program compiles the same with or without NPP.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ch07_convolution/image_filter/image.hpp"

namespace pmpp::ch07 {

/// One NPP filter set up for one image shape and mask, matching the program's definition:
/// - NPP_BORDER_REPLICATE repeats the edge pixels: the program's clamp-to-edge borders, so NPP
///   reads the picture as it is, with no bordered copy;
/// - NPP convolves (it reads its coefficients in reverse order), so the mask goes in reversed
///   (npp_coefficients) with the anchor at its centre: together, the unflipped mask;
/// - NPP rounds and sums in its own order, so its bytes are checked within npp_tolerance_levels().
class NppImageFilter {
 public:
  /// Uploads the reversed mask. @throws std::runtime_error if NPP is not available in this build.
  NppImageFilter(int width, int height, int channels, const Mask& mask);
  ~NppImageFilter();
  NppImageFilter(const NppImageFilter&) = delete;
  NppImageFilter& operator=(const NppImageFilter&) = delete;

  /// Enqueue the one NPP call on the default stream (the part that is timed). @p in and @p out are
  /// device images of the constructor's shape, rows packed (width x channels bytes apart).
  /// @throws std::runtime_error if NPP reports anything but success.
  void run(const std::uint8_t* in, std::uint8_t* out);
  /// "NPP 13.0.3, nppiFilterBorder32f_8u_C3R, NPP_BORDER_REPLICATE, mask reversed, anchor (2, 1)"
  std::string details() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The largest difference, in 8-bit levels, allowed between NPP's output and
/// filter_image_reference() for @p mask: 1 for every named mask (the derivation is in image_npp.cpp).
int npp_tolerance_levels(const Mask& mask);

}  // namespace pmpp::ch07
