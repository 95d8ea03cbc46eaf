// The library baseline: cuBLAS SGEMM on the chapter's row-major operands, in plain fp32, and with TF32
// allowed (the peer of the TF32 stage). Without
// PMPP_HAVE_CUBLAS (no cuBLAS for this toolkit at configure time) every entry point says so.
#include <stdexcept>
#include <string>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/cuda_check.hpp"

#ifdef PMPP_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

namespace pmpp::ch05 {

#ifdef PMPP_HAVE_CUBLAS

namespace {
void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS ") + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ") from " + call);
}
}  // namespace

bool cublas_available() { return true; }
std::string cublas_missing() { return ""; }

CublasSgemm::CublasSgemm(bool allow_tf32) {
  cublas_check(cublasCreate(&handle_), "cublasCreate");
  // The default math mode never rounds fp32 inputs to TF32 (that takes CUBLAS_TF32_TENSOR_OP_MATH),
  // so the baseline does the same arithmetic as the FP32 stages. Set explicitly, since it is the point.
  cublas_check(cublasSetMathMode(handle_, allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
               "cublasSetMathMode");
}

CublasSgemm::~CublasSgemm() {
  if (handle_ != nullptr) cublasDestroy(handle_);  // no throw from a destructor
}

LaunchConfig CublasSgemm::launch(const MatmulArgs& a) const {
  require_valid(a, "CublasSgemm::launch");
  const float alpha = 1.0f, beta = 0.0f;
  // Column-major view of row-major data: C^T (N x M) = B^T (N x K) * A^T (K x M), leading dimensions
  // N, K and N. No transposes are needed, only the operands swapped.
  cublas_check(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, a.N, a.M, a.K, &alpha, a.B, a.N, a.A, a.K, &beta, a.C,
                           a.N),
               "cublasSgemm");
  CUDA_CHECK_LAUNCH();
  return {};
}

#else  // no cuBLAS in this build

bool cublas_available() { return false; }
std::string cublas_missing() {
  return "cuBLAS not available in this build (CMake found no cublas_v2.h and libcublas of this CUDA toolkit, in its "
         "folders or the system's)";
}

CublasSgemm::CublasSgemm(bool) { throw std::runtime_error(cublas_missing()); }
CublasSgemm::~CublasSgemm() = default;
LaunchConfig CublasSgemm::launch(const MatmulArgs&) const { throw std::runtime_error(cublas_missing()); }

#endif

}  // namespace pmpp::ch05
