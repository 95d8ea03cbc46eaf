// The verdict on "can this build run here?" for every case a student meets: no driver, an old driver,
// a GPU the build has no code for, PTX the driver cannot compile. Only "no GPU" may be a skip.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <string>

#include "pmpp/gpu_diagnosis.hpp"

using namespace pmpp;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

BuildFacts build_for(const std::string& architectures, int cuda_version = 13000) {
  BuildFacts b;
  b.architectures = parse_architectures(architectures);
  b.compilable = cuda_version >= 13000 ? std::vector<int>{75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121}
                                       : std::vector<int>{50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90};
  b.cuda_version = cuda_version;
  b.source_dir = "/home/student/pmpp-steps";
  b.binary_dir = "/home/student/pmpp-steps/build";
  return b;
}

// A machine with one GPU whose driver and runtime agree, and whose kernel image loads.
GpuFacts gpu(const std::string& name, int major, int minor) {
  GpuFacts g;
  g.driver_version = 13000;
  g.runtime_version = 13000;
  g.device_count = 1;
  g.name = name;
  g.major = major;
  g.minor = minor;
  g.binary_version = major * 10 + minor;
  g.ptx_version = major * 10 + minor;
  return g;
}

void require_one_line(const GpuDiagnosis& d) {
  INFO(d.message);
  CHECK_FALSE(d.message.empty());
  CHECK(d.message.find('\n') == std::string::npos);
}

}  // namespace

TEST_CASE("CMake's architecture lists are read as machine code and PTX", "[host][gpu_diagnosis]") {
  const BuildArchitectures portable = parse_architectures("75-real;80-real;86-real;120-real;75-virtual");
  CHECK(portable.machine_code == std::vector<int>{75, 80, 86, 120});
  CHECK(portable.ptx == std::vector<int>{75});
  CHECK(describe(portable) == "sm_75 sm_80 sm_86 sm_120 + PTX 7.5");

  const BuildArchitectures plain = parse_architectures("90");  // a plain number is both
  CHECK(plain.machine_code == std::vector<int>{90});
  CHECK(plain.ptx == std::vector<int>{90});
  CHECK(describe(plain) == "sm_90 + PTX 9.0");

  CHECK(describe(parse_architectures("75-virtual")) == "PTX 7.5");
  CHECK(describe(parse_architectures("89-real 90-real")) == "sm_89 sm_90");
  CHECK(parse_architectures("native").keyword == "native");
  CHECK(contains(describe(parse_architectures("native")), "native"));
}

TEST_CASE("versions print as the runtime and nvidia-smi spell them", "[host][gpu_diagnosis]") {
  CHECK(cuda_version_text(12040) == "12.4");
  CHECK(cuda_version_text(13000) == "13.0");
  CHECK(cuda_version_text(12090) == "12.9");
  CHECK(capability_text(75) == "7.5");
  CHECK(capability_text(120) == "12.0");
}

TEST_CASE("no driver at all is the one case that skips", "[host][gpu_diagnosis]") {
  GpuFacts none;  // what the runtime reports without libcuda: version 0, cudaErrorInsufficientDriver
  none.driver_version = 0;
  none.runtime_version = 13000;
  none.count_status = cudaErrorInsufficientDriver;
  const GpuDiagnosis d = diagnose_gpu(none, build_for("90"));
  CHECK(d.verdict == GpuVerdict::no_gpu);
  CHECK(exit_status_for(d.verdict) == 77);
  CHECK(contains(d.message, "no NVIDIA driver"));
}

TEST_CASE("a driver without devices, or with zero, skips too", "[host][gpu_diagnosis]") {
  GpuFacts g = gpu("", 0, 0);
  g.count_status = cudaErrorNoDevice;
  CHECK(diagnose_gpu(g, build_for("90")).verdict == GpuVerdict::no_gpu);
  g.count_status = cudaSuccess;
  g.device_count = 0;
  CHECK(diagnose_gpu(g, build_for("90")).verdict == GpuVerdict::no_gpu);
}

TEST_CASE("a driver older than a CUDA 13 build fails and names both ways out", "[host][gpu_diagnosis]") {
  GpuFacts g;
  g.driver_version = 12040;  // driver 550: CUDA 12.4
  g.runtime_version = 13000;
  g.count_status = cudaErrorInsufficientDriver;  // the same error as no driver: only the version differs
  const GpuDiagnosis d = diagnose_gpu(g, build_for("90"));
  require_one_line(d);
  CHECK(d.verdict == GpuVerdict::driver_too_old);
  CHECK(exit_status_for(d.verdict) == 3);
  CHECK(contains(d.message, "CUDA 12.4"));
  CHECK(contains(d.message, "CUDA 13.0"));
  CHECK(contains(d.message, "driver 580 or newer"));
  CHECK(contains(d.message, "CUDA 12 toolkit"));
  CHECK(contains(d.message, "nvidia-smi"));
}

TEST_CASE("a driver older than every supported toolkit offers only a newer driver", "[host][gpu_diagnosis]") {
  GpuFacts g;
  g.driver_version = 11080;
  g.runtime_version = 12040;
  g.count_status = cudaErrorInsufficientDriver;
  const GpuDiagnosis d = diagnose_gpu(g, build_for("90", 12040));
  require_one_line(d);
  CHECK(d.verdict == GpuVerdict::driver_too_old);
  CHECK(contains(d.message, "CUDA 11.8"));
  CHECK(contains(d.message, "525.60.13 or newer"));
  CHECK_FALSE(contains(d.message, "rebuild"));
}

TEST_CASE("a GPU the build has no code for fails with its capability and the rebuild command",
          "[host][gpu_diagnosis]") {
  GpuFacts g = gpu("NVIDIA GeForce RTX 4090", 8, 9);
  g.image_status = cudaErrorNoKernelImageForDevice;
  const GpuDiagnosis d = diagnose_gpu(g, build_for("90"));
  require_one_line(d);
  CHECK(d.verdict == GpuVerdict::no_code_for_gpu);
  CHECK(exit_status_for(d.verdict) == 3);
  CHECK(contains(d.message, "NVIDIA GeForce RTX 4090 (cc 8.9)"));
  CHECK(contains(d.message, "it holds sm_90 + PTX 9.0"));
  // The architectures are cached: the command must configure again, not only build.
  CHECK(contains(d.message, "cmake -S /home/student/pmpp-steps -B /home/student/pmpp-steps/build "
                            "-DCMAKE_CUDA_ARCHITECTURES=89 && cmake --build /home/student/pmpp-steps/build"));

  g.image_status = cudaErrorInvalidDeviceFunction;  // what older runtimes answer for the same case
  CHECK(diagnose_gpu(g, build_for("90")).verdict == GpuVerdict::no_code_for_gpu);
}

TEST_CASE("a GPU newer than the toolkit gets PTX the driver compiles", "[host][gpu_diagnosis]") {
  GpuFacts g = gpu("NVIDIA GeForce RTX 5090", 12, 0);
  g.runtime_version = 12040;
  g.image_status = cudaErrorNoKernelImageForDevice;
  const GpuDiagnosis d = diagnose_gpu(g, build_for("89-real", 12040));  // CUDA 12.4 knows 9.0 at most
  require_one_line(d);
  CHECK(contains(d.message, "-DCMAKE_CUDA_ARCHITECTURES=90-virtual"));
}

TEST_CASE("a GPU older than the project supports is named as such", "[host][gpu_diagnosis]") {
  GpuFacts g = gpu("Tesla P100", 6, 0);
  g.image_status = cudaErrorNoKernelImageForDevice;
  const GpuDiagnosis d = diagnose_gpu(g, build_for("75-real;75-virtual"));
  require_one_line(d);
  CHECK(d.verdict == GpuVerdict::no_code_for_gpu);
  CHECK(contains(d.message, "cc 6.0"));
  CHECK(contains(d.message, "7.5 and newer"));
}

TEST_CASE("PTX newer than the driver can compile: a newer driver, or machine code", "[host][gpu_diagnosis]") {
  GpuFacts g = gpu("NVIDIA L4", 8, 9);
  g.driver_version = 12020;  // minor-version compatibility runs the 12.4 runtime, but cannot JIT its PTX
  g.runtime_version = 12040;
  g.image_status = cudaErrorUnsupportedPtxVersion;
  const GpuDiagnosis d = diagnose_gpu(g, build_for("75-virtual", 12040));
  require_one_line(d);
  CHECK(d.verdict == GpuVerdict::driver_too_old);
  CHECK(exit_status_for(d.verdict) == 3);
  CHECK(contains(d.message, "CUDA 12.2"));
  CHECK(contains(d.message, "newer NVIDIA driver"));
  CHECK(contains(d.message, "-DCMAKE_CUDA_ARCHITECTURES=89"));
}

TEST_CASE("any other refusal of the runtime fails and names the error", "[host][gpu_diagnosis]") {
  GpuFacts g = gpu("NVIDIA H100 80GB HBM3", 9, 0);
  g.count_status = cudaErrorSystemDriverMismatch;
  const GpuDiagnosis d = diagnose_gpu(g, build_for("90"));
  require_one_line(d);
  CHECK(d.verdict == GpuVerdict::cuda_error);
  CHECK(exit_status_for(d.verdict) == 3);
  CHECK(contains(d.message, "cudaErrorSystemDriverMismatch"));
}

TEST_CASE("a loadable build is ready, and says which of its code runs", "[host][gpu_diagnosis]") {
  const GpuFacts h100 = gpu("NVIDIA H100 80GB HBM3", 9, 0);
  CHECK(diagnose_gpu(h100, build_for("90")).verdict == GpuVerdict::ready);
  CHECK(exit_status_for(GpuVerdict::ready) == 0);
  CHECK(running_text(h100, parse_architectures("90")) == "running its sm_90 code");

  GpuFacts jit = h100;  // a PTX-only build: the driver compiled compute_75 for the H100
  jit.ptx_version = 75;
  CHECK(running_text(jit, parse_architectures("75-virtual")) == "running PTX 7.5 compiled by the driver for cc 9.0");

  GpuFacts ada = gpu("NVIDIA L4", 8, 9);  // sm_86 machine code runs on 8.9 as it is
  ada.binary_version = 86;
  ada.ptx_version = 86;
  CHECK(running_text(ada, parse_architectures("86-real")) == "running its sm_86 code");
  CHECK(running_text(h100, parse_architectures("native")) == "running sm_90 code");
}

TEST_CASE("this build knows what it holds and what its toolkit compiles", "[host][gpu_diagnosis]") {
  const BuildFacts& b = this_build();
  CHECK_FALSE(describe(b.architectures).empty());
  CHECK(b.cuda_version >= 12040);
  CHECK(std::find(b.compilable.begin(), b.compilable.end(), kOldestSupportedArchitecture) != b.compilable.end());
  CHECK_FALSE(b.source_dir.empty());
  CHECK_FALSE(b.binary_dir.empty());
}
