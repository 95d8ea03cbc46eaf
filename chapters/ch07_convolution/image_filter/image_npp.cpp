// The image filter's NPP row (see image_npp.hpp). Without PMPP_HAVE_NPP the constructor says why.
#include "ch07_convolution/image_filter/image_npp.hpp"

#include <cmath>
#include <stdexcept>

#include "ch07_convolution/npp_support.hpp"

#ifdef PMPP_HAVE_NPP
#include "ch07_convolution/npp_call.hpp"
#include "pmpp/device_buffer.hpp"
#endif

namespace pmpp::ch07 {

// How far NPP may land from the reference: both add the same n = width x height products w x p
// (p <= 255) in float, in different orders, so each float sum is within e = (n + 1) u 255 sum|w|
// of the exact sum (u = 2^-24; n + 1 roundings allow a separate multiply and add per tap) and the
// two sums differ by at most 2e. The reference rounds to nearest (within 0.5 of its sum); NPP's
// documentation does not say how it rounds, so allow to nearest or towards zero (within 1).
// Clamping to [0, 255] only shrinks differences, so the bytes differ by less than 1.5 + 2e levels:
// at most floor(1.5 + 2e), which is 1 for every named mask (the largest e, a 31 x 31 box's or
// gaussian's, is 0.015).
int npp_tolerance_levels(const Mask& mask) {
  double weight = 0;
  for (const float w : mask.weights) weight += std::fabs(static_cast<double>(w));
  const double e = (static_cast<double>(mask.weights.size()) + 1) * std::ldexp(1.0, -24) * 255.0 * weight;
  return static_cast<int>(std::floor(1.5 + 2 * e));
}

#ifdef PMPP_HAVE_NPP

namespace {
using FilterBorder32f8u = NppStatus (*)(const Npp8u*, int, NppiSize, NppiPoint, Npp8u*, int, NppiSize, const Npp32f*,
                                        NppiSize, NppiPoint, NppiBorderType, NppStreamContext);
/// The call for each channel count: index = channels.
struct ChannelCall {
  FilterBorder32f8u call;
  const char* name;
};
constexpr ChannelCall kCalls[MAX_IMAGE_CHANNELS + 1] = {
    {nullptr, ""},
    {nppiFilterBorder32f_8u_C1R_Ctx, "nppiFilterBorder32f_8u_C1R"},
    {nppiFilterBorder32f_8u_C2R_Ctx, "nppiFilterBorder32f_8u_C2R"},
    {nppiFilterBorder32f_8u_C3R_Ctx, "nppiFilterBorder32f_8u_C3R"},
    {nppiFilterBorder32f_8u_C4R_Ctx, "nppiFilterBorder32f_8u_C4R"},
};
}  // namespace

struct NppImageFilter::Impl {
  int width, height, channels, mask_width, mask_height;
  DeviceBuffer<float> coefficients;  ///< the mask, reversed
  NppStreamContext ctx;
};

NppImageFilter::NppImageFilter(int width, int height, int channels, const Mask& mask) {
  if (channels < 1 || channels > MAX_IMAGE_CHANNELS)
    throw std::invalid_argument("NPP row: " + std::to_string(channels) + " channels (1 to 4 supported)");
  impl_ = std::make_unique<Impl>(Impl{width, height, channels, mask.width, mask.height,
                                      DeviceBuffer<float>(npp_coefficients(mask.weights)),
                                      npp_default_stream_context()});
}

NppImageFilter::~NppImageFilter() = default;

void NppImageFilter::run(const std::uint8_t* in, std::uint8_t* out) {
  Impl& d = *impl_;
  const int step = d.width * d.channels;  // bytes from one row to the next: rows are packed
  const NppiSize size{d.width, d.height};
  const ChannelCall& c = kCalls[d.channels];
  npp_check(c.call(in, step, size, NppiPoint{0, 0}, out, step, size, d.coefficients.data(),
                   NppiSize{d.mask_width, d.mask_height}, NppiPoint{d.mask_width / 2, d.mask_height / 2},
                   NPP_BORDER_REPLICATE, d.ctx),
            c.name);
}

std::string NppImageFilter::details() const {
  const Impl& d = *impl_;
  return npp_description() + ", " + kCalls[d.channels].name + ", NPP_BORDER_REPLICATE, mask reversed, anchor (" +
         std::to_string(d.mask_width / 2) + ", " + std::to_string(d.mask_height / 2) + ")";
}

#else  // no NPP in this build

struct NppImageFilter::Impl {};

NppImageFilter::NppImageFilter(int, int, int, const Mask&) { throw std::runtime_error(npp_description()); }
NppImageFilter::~NppImageFilter() = default;
void NppImageFilter::run(const std::uint8_t*, std::uint8_t*) { throw std::runtime_error(npp_description()); }
std::string NppImageFilter::details() const { return npp_description(); }

#endif

}  // namespace pmpp::ch07
