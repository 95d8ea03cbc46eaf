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

// The bordered copy: the image inside 2r zeros on every side (see npp_baseline.hpp for why 2r). Its
// rows start 512-byte aligned and the image 16-byte aligned within them, as NPP's own allocator aligns
// images. NPP computes the region of the image and r of its border on each side, into a bordered
// output of the same layout.
namespace {
constexpr int kLead = 4;        // floats: the image starts 16-byte aligned within its row
constexpr int kRowAlign = 128;  // floats: each row starts 512-byte aligned

int lead_of(int radius) { return (2 * radius + kLead - 1) / kLead * kLead; }
int pitch_of(int width, int radius) {
  return (lead_of(radius) + width + 2 * radius + kRowAlign - 1) / kRowAlign * kRowAlign;
}
}  // namespace

struct NppConvolution::Impl {
  int width, height, radius;
  int lead;                      ///< zeros left of the image in each row: 2r rounded up to kLead
  int pitch;                     ///< floats per row of both bordered buffers (pitch_of)
  DeviceBuffer<float> bordered;  ///< 2r + height + 2r rows of `pitch` floats; zero but the image
  DeviceBuffer<float> result;    ///< NPP's output, the image at the same place as in `bordered`
  DeviceBuffer<float> coefficients;
  NppStreamContext ctx;

  std::size_t image_offset() const { return static_cast<std::size_t>(2 * radius) * pitch + lead; }
  std::size_t region_offset() const { return image_offset() - static_cast<std::size_t>(radius) * pitch - radius; }
};

namespace {
std::size_t bordered_floats(int width, int height, int radius) {
  return static_cast<std::size_t>(pitch_of(width, radius)) * (height + 4 * radius);
}
}  // namespace

NppConvolution::NppConvolution(int width, int height, int radius)
    : impl_(std::make_unique<Impl>(Impl{width, height, radius, lead_of(radius), pitch_of(width, radius),
                                        DeviceBuffer<float>(bordered_floats(width, height, radius)),
                                        DeviceBuffer<float>(bordered_floats(width, height, radius)),
                                        DeviceBuffer<float>(static_cast<std::size_t>(filter_dim(radius)) *
                                                            filter_dim(radius)),
                                        npp_default_stream_context()})) {
  CUDA_CHECK(cudaMemset(impl_->bordered.data(), 0, impl_->bordered.bytes()));  // the ghost cells, once
}

NppConvolution::~NppConvolution() = default;

void NppConvolution::prepare(const float* in, const float* filter) {
  Impl& d = *impl_;
  const std::size_t row_bytes = sizeof(float) * d.width, pitch_bytes = sizeof(float) * d.pitch;
  CUDA_CHECK(cudaMemcpy2D(d.bordered.data() + d.image_offset(), pitch_bytes, in, row_bytes, row_bytes, d.height,
                          cudaMemcpyDeviceToDevice));
  std::vector<float> host(d.coefficients.size());
  CUDA_CHECK(cudaMemcpy(host.data(), filter, d.coefficients.bytes(), cudaMemcpyDeviceToHost));
  d.coefficients.copy_from(npp_coefficients(host).data(), host.size());
}

void NppConvolution::run(const float*, const float*, float*) {
  Impl& d = *impl_;
  const int dim = filter_dim(d.radius);
  const Npp32s pitch_bytes = static_cast<Npp32s>(sizeof(float) * d.pitch);
  const NppiSize region{d.width + 2 * d.radius, d.height + 2 * d.radius};
  NPP_CHECK(nppiFilter_32f_C1R_Ctx(d.bordered.data() + d.region_offset(), pitch_bytes,
                                   d.result.data() + d.region_offset(), pitch_bytes, region, d.coefficients.data(),
                                   NppiSize{dim, dim}, NppiPoint{d.radius, d.radius}, d.ctx));
}

void NppConvolution::collect(float* out) {
  Impl& d = *impl_;
  const std::size_t row_bytes = sizeof(float) * d.width, pitch_bytes = sizeof(float) * d.pitch;
  CUDA_CHECK(cudaMemcpy2DAsync(out, row_bytes, d.result.data() + d.image_offset(), pitch_bytes, row_bytes, d.height,
                               cudaMemcpyDeviceToDevice, d.ctx.hStream));
}

std::string NppConvolution::details() const {
  return npp_description() + ", nppiFilter_32f_C1R on a copy inside 2r zeros, over the image and r pixels of "
         "its border on each side (copies not timed), filter reversed, anchor at its centre";
}

#else  // no NPP in this build

struct NppConvolution::Impl {};

NppConvolution::NppConvolution(int, int, int) { throw std::runtime_error(npp_description()); }
NppConvolution::~NppConvolution() = default;
void NppConvolution::prepare(const float*, const float*) { throw std::runtime_error(npp_description()); }
void NppConvolution::run(const float*, const float*, float*) { throw std::runtime_error(npp_description()); }
void NppConvolution::collect(float*) { throw std::runtime_error(npp_description()); }
std::string NppConvolution::details() const { return npp_description(); }

#endif

}  // namespace pmpp::ch07
