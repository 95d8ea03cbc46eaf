#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "pmpp/cli.hpp"

namespace {
struct Args {
  std::vector<std::string> words;
  std::vector<const char*> argv;
  explicit Args(std::vector<std::string> w) : words(std::move(w)) {
    argv.push_back("prog");
    for (auto& s : words) argv.push_back(s.c_str());
  }
  int argc() const { return static_cast<int>(argv.size()); }
};
struct Fixture {
  int width = 8;
  double scale = 1.0;
  std::string mode = "fast";
  bool verbose = false;
  pmpp::Cli cli{"prog", "test program"};
  Fixture() {
    cli.option("--width", width, "w", 1, 100)
        .option("--scale", scale, "s", 0.0, 10.0)
        .option("--mode", mode, "m", {"fast", "slow"})
        .flag("--verbose", verbose, "v");
  }
  bool parse(std::vector<std::string> words) {
    Args a(std::move(words));
    return cli.parse(a.argc(), a.argv.data());
  }
};
}  // namespace

TEST_CASE("cli parses both --name value and --name=value", "[cli]") {
  Fixture f;
  CHECK(f.parse({"--width", "42", "--scale=2.5", "--mode", "slow", "--verbose"}));
  CHECK(f.width == 42);
  CHECK(f.scale == 2.5);
  CHECK(f.mode == "slow");
  CHECK(f.verbose);
}

TEST_CASE("cli rejects bad values with a message naming the option", "[cli]") {
  const std::vector<std::vector<std::string>> bad{
      {"--width", "0"}, {"--width", "-1"}, {"--width", "abc"}, {"--width", "12x"}, {"--width", "101"},
      {"--width"},      {"--scale", "nan"}, {"--scale", "11"},  {"--mode", "medium"}, {"--frobnicate"},
      {"stray"},        {"--verbose=yes"}};
  for (const auto& words : bad) {
    Fixture f;
    INFO(words.front());
    CHECK_THROWS_AS(f.parse(words), pmpp::UsageError);
  }
  Fixture f;
  try {
    f.parse({"--width", "abc"});
    FAIL("no error");
  } catch (const pmpp::UsageError& e) {
    CHECK(std::string(e.what()) == "--width must be an integer in [1, 100], got 'abc'");
  }
}

TEST_CASE("cli --help returns false and lists every option with its default", "[cli]") {
  Fixture f;
  CHECK_FALSE(f.parse({"--help"}));
  const std::string text = f.cli.help();
  CHECK(text.find("--width N") != std::string::npos);
  CHECK(text.find("(default 8)") != std::string::npos);
  CHECK(text.find("--mode fast|slow") != std::string::npos);
}
