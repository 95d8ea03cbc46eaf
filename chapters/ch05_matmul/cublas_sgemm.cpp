// The library baseline: cuBLAS SGEMM on the chapter's row-major operands, in plain fp32.
#include <cublas_v2.h>

#include <stdexcept>
#include <string>

#include "ch05_matmul/matmul.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch05 {

namespace {
void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS ") + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ") from " + call);
}
}  // namespace

CublasSgemm::CublasSgemm() {
  cublas_check(cublasCreate(&handle_), "cublasCreate");
  // The default math mode never rounds fp32 inputs to TF32 (that takes CUBLAS_TF32_TENSOR_OP_MATH),
  // so the baseline does the same arithmetic as the stages. Set explicitly, since it is the point.
  cublas_check(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
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

}  // namespace pmpp::ch05
