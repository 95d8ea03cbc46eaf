// The cuDNN baseline (see cudnn_baseline.hpp). Without PMPP_HAVE_CUDNN every entry point says so.
#include "ch07_convolution/cudnn_baseline.hpp"

#include <algorithm>
#include <stdexcept>

#ifdef PMPP_HAVE_CUDNN
#include <cudnn.h>

#include <vector>

#include "pmpp/device_buffer.hpp"
#endif

namespace pmpp::ch07 {

#ifdef PMPP_HAVE_CUDNN

namespace {

void cudnn_check(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuDNN: ") + call + " failed: " + cudnnGetErrorString(status));
}
#define CUDNN_CHECK(call) cudnn_check((call), #call)

const char* algorithm_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "unknown";
  }
}

}  // namespace

bool cudnn_available() { return true; }

std::string cudnn_description() {
  const std::size_t v = cudnnGetVersion();  // major * 10000 + minor * 100 + patch since cuDNN 9
  return "cuDNN " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

struct CudnnConvolution::Impl {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t image = nullptr;  // input and output: 1 image, 1 channel, height x width
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t convolution = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  bool chosen = false;  // the algorithm is measured on the first run(), on that call's buffers
  DeviceBuffer<unsigned char> workspace;

  void choose_algorithm(const float* in, const float* filter_data, float* out);

  ~Impl() {  // in reverse order of creation; a destructor reports nothing
    if (convolution) cudnnDestroyConvolutionDescriptor(convolution);
    if (filter) cudnnDestroyFilterDescriptor(filter);
    if (image) cudnnDestroyTensorDescriptor(image);
    if (handle) cudnnDestroy(handle);
  }
};

CudnnConvolution::CudnnConvolution(int width, int height, int radius) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  const int dim = 2 * radius + 1;
  CUDNN_CHECK(cudnnCreate(&d.handle));
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&d.image));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(d.image, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, height, width));
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&d.filter));
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(d.filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, dim, dim));
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d.convolution));
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(d.convolution, radius, radius, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT));
  // CUDNN_DEFAULT_MATH would let cuDNN pick TF32 tensor-core kernels on Ampere and later (10 mantissa
  // bits): FMA_MATH keeps it to fp32 FMAs, the arithmetic every stage here does.
  CUDNN_CHECK(cudnnSetConvolutionMathType(d.convolution, CUDNN_FMA_MATH));

  int n = 0, c = 0, h = 0, w = 0;
  CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(d.convolution, d.image, d.filter, &n, &c, &h, &w));
  if (n != 1 || c != 1 || h != height || w != width)
    throw std::runtime_error("cuDNN: the padded convolution does not keep the image size");
}

// FFT and Winograd algorithms transform the image and the filter and round in the transformed space:
// their error is not bounded by the float bound of a sum of products that the chapter checks with.
namespace {
bool sums_products(cudnnConvolutionFwdAlgo_t algo) {
  return algo != CUDNN_CONVOLUTION_FWD_ALGO_FFT && algo != CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING &&
         algo != CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD && algo != CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
}  // namespace

// Let cuDNN time every algorithm it has for this problem (sorted fastest first) on the problem's own
// buffers, and take the fastest that ran, sums products (above) and is not a tensor-core variant. (The variant without "Ex"
// times on buffers it allocates and never initializes, which compute-sanitizer's initcheck reports.)
void CudnnConvolution::Impl::choose_algorithm(const float* in, const float* filter_data, float* out) {
  std::size_t largest = 0;
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    std::size_t bytes = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(handle, image, filter, convolution, image,
                                                static_cast<cudnnConvolutionFwdAlgo_t>(a), &bytes) == CUDNN_STATUS_SUCCESS)
      largest = std::max(largest, std::min<std::size_t>(bytes, std::size_t{1} << 30));  // skip absurd requests
  }
  DeviceBuffer<unsigned char> search_space(largest);
  int requested = 0, returned = 0;
  CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &requested));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(requested));
  CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(handle, image, in, filter, filter_data, convolution, image, out,
                                                     requested, &returned, perf.data(), search_space.data(),
                                                     search_space.bytes()));
  const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
  for (int i = 0; i < returned && best == nullptr; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && sums_products(perf[i].algo) && perf[i].mathType != CUDNN_TENSOR_OP_MATH &&
        perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
      best = &perf[i];
  if (best == nullptr) throw std::runtime_error("cuDNN found no fp32 forward algorithm for this problem");
  algo = best->algo;
  std::size_t bytes = 0;
  CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, image, filter, convolution, image, algo, &bytes));
  workspace = DeviceBuffer<unsigned char>(bytes);
  chosen = true;
}

CudnnConvolution::~CudnnConvolution() = default;

void CudnnConvolution::run(const float* in, const float* filter, float* out) {
  const float alpha = 1.0f, beta = 0.0f;  // out = 1 * conv + 0 * out: the old contents are not read
  Impl& d = *impl_;
  if (!d.chosen) d.choose_algorithm(in, filter, out);
  CUDNN_CHECK(cudnnConvolutionForward(d.handle, &alpha, d.image, in, d.filter, filter, d.convolution, d.algo,
                                      d.workspace.data(), d.workspace.bytes(), &beta, d.image, out));
}

std::string CudnnConvolution::algorithm() const { return algorithm_name(impl_->algo); }

std::size_t CudnnConvolution::workspace_bytes() const { return impl_->workspace.bytes(); }

std::string CudnnConvolution::details() const {
  const std::size_t workspace = workspace_bytes();
  return cudnn_description() + ", algorithm " + algorithm() + " (the fastest fp32 one it measured), " +
         (workspace == 0 ? std::string("no workspace") : std::to_string(workspace) + "-byte workspace") +
         ", FMA math (no TF32)";
}

#else  // no cuDNN in this build

struct CudnnConvolution::Impl {};

bool cudnn_available() { return false; }

std::string cudnn_description() {
  return "cuDNN not available in this build (CMake found no cudnn.h and libcudnn of this CUDA toolkit, in its "
         "folders or the system's)";
}

CudnnConvolution::CudnnConvolution(int, int, int) { throw std::runtime_error(cudnn_description()); }
CudnnConvolution::~CudnnConvolution() = default;
void CudnnConvolution::run(const float*, const float*, float*) { throw std::runtime_error(cudnn_description()); }
std::string CudnnConvolution::algorithm() const { return "none"; }
std::size_t CudnnConvolution::workspace_bytes() const { return 0; }
std::string CudnnConvolution::details() const { return cudnn_description(); }

#endif

}  // namespace pmpp::ch07
