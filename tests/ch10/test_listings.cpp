// The kernels the book prints are the kernels that run: each stage's `//! [kernel]` listing (what the
// book's \snippet shows, byte for byte) carries nothing of the counting build, and the counting build
// launches that same kernel on CountedFloat.
#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ch10_reduction/reduction.hpp"

using namespace pmpp::ch10;

namespace {
std::string read_source(const std::string& id) {
  std::ifstream file(std::string(PMPP_CH10_SOURCE_DIR) + "/" + id + ".cu");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// The lines between the two `//! [name]` markers ("" if there is no such pair).
std::string region(const std::string& source, const std::string& name) {
  const std::string marker = "//! [" + name + "]";
  const std::size_t open = source.find(marker);
  if (open == std::string::npos) return "";
  const std::size_t close = source.find(marker, open + marker.size());
  if (close == std::string::npos) return "";
  return source.substr(open + marker.size(), close - open - marker.size());
}

/// Every statement of @p source that launches @p kernel (from the name to the semicolon).
std::vector<std::string> launches_of(const std::string& source, const std::string& kernel) {
  std::vector<std::string> found;
  for (std::size_t at = source.find(kernel + "<<<"); at != std::string::npos;
       at = source.find(kernel + "<<<", at + 1))
    found.push_back(source.substr(at, source.find(';', at) - at));
  return found;
}

const std::vector<std::string> kCountingWords = {"Counted", "counted", "count_into", "counting", "probe", "Probe",
                                                 "__isGlobal", "__activemask"};
}  // namespace

TEST_CASE("every stage's kernel listing is plain CUDA on an element type T", "[listings]") {
  for (const Stage& stage : stages()) {
    const std::string source = read_source(stage.id);
    INFO(stage.id << ".cu");
    REQUIRE_FALSE(source.empty());
    const std::string kernel = region(source, "kernel");
    REQUIRE_FALSE(kernel.empty());
    CHECK(kernel.find("template <class T") != std::string::npos);
    CHECK(kernel.find("__global__") != std::string::npos);
    for (const std::string& listing : {kernel, region(source, "launcher")})
      for (const std::string& word : kCountingWords) {
        INFO("the listing mentions '" << word << "'");
        CHECK(listing.find(word) == std::string::npos);
      }
  }
}

TEST_CASE("the counting build launches the kernel the listing shows", "[listings]") {
  const std::regex kernel_name(R"(\b([A-Z]\w*Kernel)\s*\()");
  for (const Stage& stage : stages()) {
    const std::string source = read_source(stage.id);
    std::smatch name;
    const std::string kernel = region(source, "kernel");
    INFO(stage.id << ".cu");
    REQUIRE(std::regex_search(kernel, name, kernel_name));
    const std::vector<std::string> launches = launches_of(source, name[1]);
    INFO("launches of " << name[1]);
    REQUIRE(launches.size() == 2);
    // One launch on the float pointers the launcher got, one on the same memory seen as CountedFloat.
    CHECK(launches[0].find("counted(") == std::string::npos);
    CHECK(launches[1].find("counted(a.input)") != std::string::npos);
  }
}
