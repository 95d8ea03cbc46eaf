// The NPP baseline (see npp_baseline.hpp). Without PMPP_HAVE_NPP every entry point says so.
#include "ch07_convolution/npp_baseline.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#ifdef PMPP_HAVE_NPP
#include "ch07_convolution/convolution.hpp"
#include "ch07_convolution/npp_call.hpp"
#include "pmpp/device_buffer.hpp"
#endif

namespace pmpp::ch07 {

#ifdef PMPP_HAVE_NPP

// The bordered copy: at least r zeros on every side. Its rows start 512-byte aligned and the image
// 16-byte aligned within them (as NPP's own allocator aligns images), and a few zero rows follow the
// last one. (With a border of exactly r, unaligned, the 3 x 3 and 5 x 5 filters failed the check the
// same way: see kNppMinRadius.)
namespace {
constexpr int kLead = 4;       // floats: the image starts 16-byte aligned within its row
constexpr int kRowAlign = 128;  // floats: each row starts 512-byte aligned
constexpr int kTailRows = 8;    // zero rows below the bottom border

int lead_of(int radius) { return (radius + kLead - 1) / kLead * kLead; }
int pitch_of(int width, int radius) {
  return (lead_of(radius) + width + radius + kLead + kRowAlign - 1) / kRowAlign * kRowAlign;
}
}  // namespace

struct NppConvolution::Impl {
  int width, height, radius;
  int lead;                      ///< zeros left of the image in each row: r rounded up to kLead
  int pitch;                     ///< floats per row of the bordered copy (pitch_of)
  DeviceBuffer<float> bordered;  ///< r + height + r + kTailRows rows of `pitch` floats; zero but the image
  DeviceBuffer<float> coefficients;
  NppStreamContext ctx;

  float* interior() { return bordered.data() + static_cast<std::size_t>(radius) * pitch + lead; }
};

namespace {
int supported(int radius) {
  if (radius < kNppMinRadius)
    throw std::runtime_error("not run for r < " + std::to_string(kNppMinRadius) +
                             ": its 3 x 3 and 5 x 5 filters failed the check on an H200 (see npp_baseline.hpp)");
  return radius;
}
}  // namespace

NppConvolution::NppConvolution(int width, int height, int radius)
    : impl_(std::make_unique<Impl>(Impl{width, height, supported(radius), lead_of(radius), pitch_of(width, radius),
                                        DeviceBuffer<float>(static_cast<std::size_t>(pitch_of(width, radius)) *
                                                            (height + 2 * radius + kTailRows)),
                                        DeviceBuffer<float>(static_cast<std::size_t>(filter_dim(radius)) *
                                                            filter_dim(radius)),
                                        npp_default_stream_context()})) {
  CUDA_CHECK(cudaMemset(impl_->bordered.data(), 0, impl_->bordered.bytes()));  // the ghost cells, once
}

NppConvolution::~NppConvolution() = default;

void NppConvolution::prepare(const float* in, const float* filter) {
  Impl& d = *impl_;
  const std::size_t row_bytes = sizeof(float) * d.width, pitch_bytes = sizeof(float) * d.pitch;
  CUDA_CHECK(cudaMemcpy2D(d.interior(), pitch_bytes, in, row_bytes, row_bytes, d.height, cudaMemcpyDeviceToDevice));
  std::vector<float> host(d.coefficients.size());
  CUDA_CHECK(cudaMemcpy(host.data(), filter, d.coefficients.bytes(), cudaMemcpyDeviceToHost));
  d.coefficients.copy_from(npp_coefficients(host).data(), host.size());
}

void NppConvolution::run(const float*, const float*, float* out) {
  Impl& d = *impl_;
  const int dim = filter_dim(d.radius);
  NPP_CHECK(nppiFilter_32f_C1R_Ctx(d.interior(), static_cast<Npp32s>(sizeof(float) * d.pitch), out,
                                   static_cast<Npp32s>(sizeof(float) * d.width), NppiSize{d.width, d.height},
                                   d.coefficients.data(), NppiSize{dim, dim}, NppiPoint{d.radius, d.radius}, d.ctx));
}

std::string NppConvolution::details() const {
  return npp_description() + ", nppiFilter_32f_C1R on a copy inside a border of at least " +
         std::to_string(impl_->radius) + " zeros (copy not timed), filter reversed, anchor at its centre";
}

#else  // no NPP in this build

struct NppConvolution::Impl {};

NppConvolution::NppConvolution(int, int, int) { throw std::runtime_error(npp_description()); }
NppConvolution::~NppConvolution() = default;
void NppConvolution::prepare(const float*, const float*) { throw std::runtime_error(npp_description()); }
void NppConvolution::run(const float*, const float*, float*) { throw std::runtime_error(npp_description()); }
std::string NppConvolution::details() const { return npp_description(); }

#endif

}  // namespace pmpp::ch07
