// The tensor map of pmpp/tensor_map.hpp, made by the driver's cuTensorMapEncodeTiled.
#include "pmpp/tensor_map.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "pmpp/cuda_check.hpp"

namespace pmpp {

namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// The driver's cuTensorMapEncodeTiled, found through the runtime, so that the programs need no link
/// to the driver library (and start on machines without one).
EncodeTiled encode_tiled() {
  static const EncodeTiled encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
#else
    CUDA_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &function, cudaEnableDefault, &found));
#endif
    if (found != cudaDriverEntryPointSuccess || function == nullptr)
      throw std::runtime_error("the CUDA driver has no cuTensorMapEncodeTiled (it needs CUDA 12.0 or later)");
    return reinterpret_cast<EncodeTiled>(function);
  }();
  return encode;
}

CUtensorMapL2promotion l2_promotion(int bytes) {
  switch (bytes) {
    case 64: return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case 128: return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    case 256: return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    default:
      throw std::invalid_argument("float_tensor_map: L2 promotion of 64, 128 or 256 bytes, got " +
                                  std::to_string(bytes));
  }
}

}  // namespace

CUtensorMap float_tensor_map(const float* base, std::uint64_t cols, std::uint64_t rows, std::uint64_t pitch_bytes,
                             std::uint32_t box_cols, std::uint32_t box_rows, BoxLayout layout, int l2_promotion_bytes) {
  CUtensorMap map{};
  const cuuint64_t size[2] = {cols, rows};  // innermost first
  const cuuint64_t pitch[1] = {pitch_bytes};
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t step[2] = {1, 1};  // every element of the box, none skipped
  const CUresult result = encode_tiled()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), size, pitch, box, step,
      CU_TENSOR_MAP_INTERLEAVE_NONE,
      layout == BoxLayout::swizzled_128b ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
      l2_promotion(l2_promotion_bytes), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // "none": zeros, not NaN
  if (result != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed with error " + std::to_string(static_cast<int>(result)) +
                             " for a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix of floats, " +
                             std::to_string(box_rows) + " x " + std::to_string(box_cols) + " boxes");
  return map;
}

}  // namespace pmpp
