/// @file gpu_diagnosis.hpp
/// @brief Can this build run on this machine's GPU, and if not, what exactly fixes it?
///
/// The runtime's own errors name a symptom (`cudaErrorNoKernelImageForDevice`,
/// `cudaErrorInsufficientDriver`), not the cure, and an old driver looks the same as no driver at
/// all. diagnose_gpu() turns what the runtime reports (gathered by probe_gpu()) and what the build
/// contains (this_build()) into one verdict and one line that names the fix. It makes no CUDA call,
/// so host tests can feed it every case, old drivers and missing GPUs included.
///
/// Only a machine without a GPU is a skip (exit status 77, a skipped test); a GPU that this build
/// cannot use is a failure (exit status 3, a failed test), since a skip would let `make test` pass
/// on a machine where nothing ran.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

namespace pmpp {

/// What a build contains, from CMake's CUDA_ARCHITECTURES ("75-real;90" or "75-real 90"): "NN-real"
/// is machine code (sm_NN), "NN-virtual" PTX (compute_NN), a plain "NN" both.
struct BuildArchitectures {
  std::vector<int> machine_code;  ///< sm_NN: runs on compute capability N.N and later minors of it
  std::vector<int> ptx;           ///< compute_NN: the driver compiles it for capability N.N and newer
  std::string keyword;            ///< "native", "all" or "all-major" when CMake expanded the list
};

/// Parse a CUDA_ARCHITECTURES list; entries separated by ';', ',' or spaces.
inline BuildArchitectures parse_architectures(const std::string& list) {
  BuildArchitectures a;
  std::string entry;
  auto take = [&a](const std::string& e) {
    if (e.empty()) return;
    if (!std::isdigit(static_cast<unsigned char>(e[0]))) {
      a.keyword = e;
      return;
    }
    std::size_t digits = 0;
    while (digits < e.size() && std::isdigit(static_cast<unsigned char>(e[digits]))) ++digits;
    const int number = std::stoi(e.substr(0, digits));
    const bool is_virtual = e.find("-virtual") != std::string::npos;
    const bool is_real = e.find("-real") != std::string::npos;
    if (!is_virtual) a.machine_code.push_back(number);
    if (!is_real) a.ptx.push_back(number);
  };
  for (char c : list) {
    if (c == ';' || c == ',' || c == ' ') {
      take(entry);
      entry.clear();
    } else {
      entry += c;
    }
  }
  take(entry);
  return a;
}

/// 90 -> "9.0", 120 -> "12.0" (compute capability x 10, as CMake and nvcc spell it).
inline std::string capability_text(int number) {
  return std::to_string(number / 10) + "." + std::to_string(number % 10);
}

/// A CUDA version as the runtime reports it: 12040 -> "12.4", 13000 -> "13.0".
inline std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/// "sm_75 sm_90 + PTX 7.5", "PTX 7.5", "sm_90", or CMake's keyword.
inline std::string describe(const BuildArchitectures& a) {
  if (!a.keyword.empty() && a.machine_code.empty() && a.ptx.empty())
    return a.keyword == "native" ? "the GPUs of the machine that built it (native)" : "CMake's '" + a.keyword + "' list";
  std::string text;
  for (int n : a.machine_code) text += (text.empty() ? "sm_" : " sm_") + std::to_string(n);
  if (!a.ptx.empty()) {
    text += text.empty() ? "PTX" : " + PTX";
    for (int n : a.ptx) text += " " + capability_text(n);
  }
  return text;
}

/// What the build says about itself: compiled in by CMake (see common/CMakeLists.txt).
struct BuildFacts {
  BuildArchitectures architectures;
  std::vector<int> compilable;  ///< what this build's toolkit can compile for (its compute_NN list)
  int cuda_version = 0;         ///< the toolkit's CUDA version (CUDART_VERSION: 12040 = 12.4)
  std::string source_dir;       ///< for the rebuild command
  std::string binary_dir;
};

/// Everything the runtime says about the GPU, gathered by probe_gpu() (common/gpu_probe.cu).
struct GpuFacts {
  int driver_version = 0;   ///< cudaDriverGetVersion: the CUDA version the driver supports; 0 = no driver
  int runtime_version = 0;  ///< cudaRuntimeGetVersion: the CUDA version of the runtime in this program
  cudaError_t count_status = cudaSuccess;  ///< cudaGetDeviceCount
  int device_count = 0;
  std::string name;         ///< of the device used (the current one)
  int major = 0, minor = 0; ///< its compute capability
  cudaError_t image_status = cudaSuccess;  ///< cudaFuncGetAttributes of a kernel of this build there
  int binary_version = 0;   ///< the machine code that runs (cudaFuncAttributes::binaryVersion), e.g. 90
  int ptx_version = 0;      ///< the PTX it came from (cudaFuncAttributes::ptxVersion), e.g. 75
};

enum class GpuVerdict {
  ready,            ///< run
  no_gpu,           ///< no driver, or no device: skip (exit status 77)
  driver_too_old,   ///< a GPU, but the driver is older than this build needs: fail (exit status 3)
  no_code_for_gpu,  ///< a GPU this build has no machine code or usable PTX for: fail (exit status 3)
  cuda_error,       ///< anything else the runtime refused: fail (exit status 3)
};

struct GpuDiagnosis {
  GpuVerdict verdict = GpuVerdict::ready;
  std::string message;  ///< one line: what is wrong and what fixes it (for no_gpu: why there is none)
};

/// The oldest compute capability this project supports (x 10).
inline constexpr int kOldestSupportedArchitecture = 75;

/// The least driver a CUDA major version needs on Linux (minor-version compatibility: any 12.x build
/// runs on a driver for 12.0 or newer).
inline std::string least_driver_for(int cuda_version) {
  if (cuda_version / 1000 == 12) return "525.60.13";
  if (cuda_version / 1000 == 13) return "580";
  return "one for CUDA " + cuda_version_text(cuda_version / 1000 * 1000);
}

/// The configure-and-build command that makes this build run on a GPU of compute capability @p cc
/// (x 10): machine code for it if the toolkit knows it, else PTX of the newest architecture the
/// toolkit knows, which the driver compiles. CMAKE_CUDA_ARCHITECTURES is cached, so the command
/// configures again rather than only building. Empty if no architecture of the toolkit can serve.
inline std::string rebuild_command(const BuildFacts& build, int cc) {
  std::string value;
  if (std::find(build.compilable.begin(), build.compilable.end(), cc) != build.compilable.end()) {
    value = std::to_string(cc);
  } else {
    int best = 0;
    for (int n : build.compilable)
      if (n <= cc && n > best) best = n;
    if (best == 0) return "";
    value = std::to_string(best) + "-virtual";
  }
  const std::string source = build.source_dir.empty() ? "." : build.source_dir;
  const std::string binary = build.binary_dir.empty() ? "build" : build.binary_dir;
  return "cmake -S " + source + " -B " + binary + " -DCMAKE_CUDA_ARCHITECTURES=" + value + " && cmake --build " + binary;
}

/// "running its sm_90 code" or "running PTX 7.5 compiled by the driver for cc 9.0".
inline std::string running_text(const GpuFacts& gpu, const BuildArchitectures& build) {
  if (gpu.binary_version == 0) return "code not loaded";
  const auto& sm = build.machine_code;
  if (sm.empty() && build.ptx.empty())  // CMake expanded 'native' or 'all': which is which is not known here
    return "running sm_" + std::to_string(gpu.binary_version) + " code";
  if (std::find(sm.begin(), sm.end(), gpu.binary_version) != sm.end())
    return "running its sm_" + std::to_string(gpu.binary_version) + " code";
  return "running PTX " + capability_text(gpu.ptx_version) + " compiled by the driver for cc " +
         capability_text(gpu.binary_version);
}

/// The verdict for @p gpu and @p build. Pure: no CUDA call is made.
inline GpuDiagnosis diagnose_gpu(const GpuFacts& gpu, const BuildFacts& build) {
  const std::string driver = cuda_version_text(gpu.driver_version);
  const std::string runtime = cuda_version_text(gpu.runtime_version);
  auto error_text = [](cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); };

  // Without a driver the runtime answers cudaErrorInsufficientDriver too; only the driver version tells
  // "no driver" (0) from "an old driver".
  if (gpu.driver_version == 0) return {GpuVerdict::no_gpu, "no NVIDIA driver is installed"};
  if (gpu.count_status == cudaErrorNoDevice) return {GpuVerdict::no_gpu, "the NVIDIA driver sees no CUDA device"};
  if (gpu.count_status == cudaErrorInsufficientDriver) {
    const int driver_major = gpu.driver_version / 1000;
    std::string fix = "install NVIDIA driver " + least_driver_for(gpu.runtime_version) + " or newer";
    if (driver_major < 12)
      fix += " (no toolkit this project supports, CUDA 12.4 and newer, runs on this driver)";
    else if (driver_major < gpu.runtime_version / 1000)
      fix += ", or rebuild with a CUDA " + std::to_string(driver_major) + " toolkit" +
             (driver_major == 12 ? " (12.4 or newer)" : "") + ", which this driver runs";
    return {GpuVerdict::driver_too_old, "the NVIDIA driver supports CUDA " + driver + ", older than this build's CUDA " +
                                            runtime + ": " + fix + "; nvidia-smi shows the driver's version"};
  }
  if (gpu.count_status != cudaSuccess)
    return {GpuVerdict::cuda_error, "the CUDA runtime cannot use the GPU (" + error_text(gpu.count_status) + ")"};
  if (gpu.device_count == 0) return {GpuVerdict::no_gpu, "the NVIDIA driver reports zero CUDA devices"};

  const int cc = gpu.major * 10 + gpu.minor;
  const std::string gpu_name = "the " + gpu.name + " (cc " + capability_text(cc) + ")";
  const std::string contents = describe(build.architectures);
  const std::string rebuild = rebuild_command(build, cc);
  switch (gpu.image_status) {
    case cudaSuccess:
      return {GpuVerdict::ready, ""};
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
      if (cc < kOldestSupportedArchitecture || rebuild.empty())
        return {GpuVerdict::no_code_for_gpu, "this build has no code for " + gpu_name + ", which is older than this "
                                             "project supports (compute capability 7.5 and newer)"};
      return {GpuVerdict::no_code_for_gpu,
              "this build has no code for " + gpu_name + ": it holds " + contents + "; rebuild for it: " + rebuild};
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInsufficientDriver: {
      // Machine code needs no compiling by the driver: the other way out, where the toolkit knows the GPU.
      const bool toolkit_knows_gpu =
          std::find(build.compilable.begin(), build.compilable.end(), cc) != build.compilable.end();
      return {GpuVerdict::driver_too_old,
              "the NVIDIA driver (CUDA " + driver + ") cannot compile this build's PTX (CUDA " +
                  cuda_version_text(build.cuda_version) + ") for " + gpu_name + ", and the build holds no machine code " +
                  "for it (" + contents + "): install a newer NVIDIA driver" +
                  (toolkit_knows_gpu ? ", or rebuild with machine code for it: " + rebuild : std::string())};
    }
    default:
      return {GpuVerdict::cuda_error,
              "the CUDA runtime cannot load this build's code on " + gpu_name + " (" + error_text(gpu.image_status) + ")"};
  }
}

/// The exit status a program ends with for @p verdict when it cannot run (program.hpp's statuses).
inline int exit_status_for(GpuVerdict verdict) {
  switch (verdict) {
    case GpuVerdict::ready: return 0;
    case GpuVerdict::no_gpu: return 77;
    default: return 3;
  }
}

// ---- What the runtime and the build report (common/gpu_probe.cu) ---------------------------------

/// Ask the runtime about the current device: driver and runtime versions, device count, compute
/// capability, and whether a kernel of this build loads there. Never throws.
GpuFacts probe_gpu();

/// What this build was configured with: architectures, toolkit, source and build folders.
const BuildFacts& this_build();

}  // namespace pmpp
