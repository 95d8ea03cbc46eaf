// The floor of a launch and the physics check (trusted/floor.hpp), and the JSON text of the feedback
// fact (trusted/json_text.hpp): plain arithmetic, checked without a GPU.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <limits>
#include <string>

#include "floor.hpp"
#include "json_text.hpp"

using namespace pmpp_grader;

namespace {
// An H100 SXM's peaks as pmpp::DeviceInfo computes them, and its L2.
constexpr double kDramGbps = 3352, kFp32Gflops = 66900, kL2 = 50.0 * (1 << 20);
constexpr double kGiB = 1024.0 * 1024 * 1024;
}  // namespace

TEST_CASE("a reduction of 2^28 floats is bound by reading its gigabyte from DRAM", "[floor]") {
  const Floor f = floor_of({kGiB, 4, 268435456.0}, kDramGbps, kFp32Gflops, kL2);
  CHECK(std::string(f.kind) == "DRAM");
  CHECK(f.bytes == kGiB);  // the 4-byte result stays in L2
  CHECK(f.ms == Catch::Approx(kGiB / 3352e6));
}

TEST_CASE("written bytes count only beyond what L2 can hold", "[floor]") {
  CHECK(floor_of({0, kL2 / 2, 0}, kDramGbps, kFp32Gflops, kL2).bytes == 0);
  CHECK(floor_of({1000, kL2 + 4096, 0}, kDramGbps, kFp32Gflops, kL2).bytes == 1000 + 4096);
}

TEST_CASE("arithmetic sets the floor where it takes longer than the traffic", "[floor]") {
  // 1 MiB in and 10^12 operations: about 15 ms of FP32 against 0.3 us of DRAM.
  const Floor f = floor_of({1 << 20, 0, 1e12}, kDramGbps, kFp32Gflops, kL2);
  CHECK(std::string(f.kind) == "FP32");
  CHECK(f.ms == Catch::Approx(1e12 / 66900e6));
}

TEST_CASE("unknown peaks give no floor, and nothing is flagged", "[floor]") {
  const Floor f = floor_of({kGiB, 4, 1e9}, 0, 0, kL2);
  CHECK(f.ms == 0);
  const Physics p = check_physics(1e-6, f);
  CHECK_FALSE(p.flagged);
  CHECK(p.line.find("not known") != std::string::npos);
}

TEST_CASE("a time below the floor, past the tolerance, is flagged as impossible", "[physics]") {
  const Floor f = floor_of({kGiB, 4, 0}, kDramGbps, kFp32Gflops, kL2);  // 0.32 ms
  const Physics cheat = check_physics(0.03, f);
  CHECK(cheat.flagged);
  CHECK(cheat.line.rfind("impossible:", 0) == 0);
  CHECK(check_physics(f.ms * (1 - kPhysicsTolerance) * 0.999, f).flagged);
  // Within the tolerance of the floor: the peaks are theoretical, so that much is not proof.
  CHECK_FALSE(check_physics(f.ms * (1 - kPhysicsTolerance) * 1.001, f).flagged);
  const Physics honest = check_physics(0.36, f);
  CHECK_FALSE(honest.flagged);
  CHECK(honest.line.rfind("possible:", 0) == 0);
  CHECK(honest.line.size() <= 100);
}

TEST_CASE("the physics line fits one report line", "[physics]") {
  const Floor f = floor_of({kGiB, 4, 0}, kDramGbps, kFp32Gflops, kL2);
  CHECK(check_physics(0.0123, f).line.find('\n') == std::string::npos);
}

TEST_CASE("JSON strings escape whatever bytes they hold", "[json]") {
  CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_string("line\nnext\ttab") == "\"line\\u000anext\\u0009tab\"");
  CHECK(json_string(std::string("caf\xff", 4)) == "\"caf\\u00ff\"");
  CHECK(json_string(std::string("\0x", 2)) == "\"\\u0000x\"");
}

TEST_CASE("JSON numbers are finite or null", "[json]") {
  CHECK(json_number(0.25) == "0.25");
  CHECK(json_number(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(json_number(1.5, false) == "null");
  CHECK(json_bool(true) == "true");
}
