#include <catch2/catch_test_macros.hpp>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "pmpp/cli.hpp"
#include "pmpp/program.hpp"

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

TEST_CASE("cli --help wraps the summary and each description within 100 columns", "[cli]") {
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += (i ? " " : "") + std::string("word") + std::to_string(i);
  int value = 1;
  std::string choice = "a";
  pmpp::Cli cli("prog", long_text);
  cli.option("--value", value, long_text, 0, 9).option("--a-rather-long-option-name", choice, "short", {"a", "b"});
  const std::string text = cli.help();
  INFO(text);
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    CHECK(line.size() <= 100);
    lines.push_back(line);
  }
  // A description's continuation lines start at the description column (30).
  std::size_t first = 0;
  while (first < lines.size() && lines[first].rfind("  --value N", 0) != 0) ++first;
  REQUIRE(first + 1 < lines.size());
  CHECK(lines[first].substr(30, 6) == "word0 ");
  CHECK(lines[first + 1].substr(0, 30) == std::string(30, ' '));
  CHECK(lines[first + 1][30] == 'w');
  // An option too long for its column has its description on the next line.
  CHECK(text.find("  --a-rather-long-option-name a|b\n" + std::string(30, ' ') + "short (default a)\n") != std::string::npos);
  CHECK(text.find("  --help                      show this text\n") != std::string::npos);
}

TEST_CASE("cli file options show FILE and need a name", "[cli]") {
  std::string path;
  pmpp::Cli cli("prog", "test program");
  cli.file("--json", path, "where to write");
  CHECK(cli.help().find("  --json FILE                 where to write\n") != std::string::npos);
  const char* empty[] = {"prog", "--json="};
  CHECK_THROWS_AS(cli.parse(2, empty), pmpp::UsageError);
  const char* given[] = {"prog", "--json", "out.json"};
  CHECK(cli.parse(3, given));
  CHECK(path == "out.json");
}

namespace {
// What @p body's program prints on stderr through guarded_main, and the status it returns.
template <class Body>
std::pair<int, std::string> run_guarded(Body body) {
  std::fflush(stderr);
  std::FILE* capture = std::tmpfile();
  const int saved = dup(fileno(stderr));
  dup2(fileno(capture), fileno(stderr));
  const int status = pmpp::guarded_main("prog", body);
  std::fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  std::rewind(capture);
  std::string text;
  for (int ch; (ch = std::fgetc(capture)) != EOF;) text += static_cast<char>(ch);
  std::fclose(capture);
  return {status, text};
}
}  // namespace

TEST_CASE("a usage error is one line; a long runtime error wraps within 100 columns", "[cli]") {
  const std::string long_text = std::string(60, 'x') + " " + std::string(60, 'y') + " " + std::string(60, 'z');
  const auto usage = run_guarded([&]() -> int { throw pmpp::UsageError(long_text); });
  CHECK(usage.first == pmpp::kExitUsage);
  CHECK(usage.second == "prog: error: " + long_text + " (try --help)\n");  // one line, as tests demand
  const auto runtime = run_guarded([&]() -> int { throw std::runtime_error(long_text); });
  CHECK(runtime.first == pmpp::kExitRuntimeError);
  CHECK(runtime.second == "prog: error: " + std::string(60, 'x') + "\n  " + std::string(60, 'y') + "\n  " +
                              std::string(60, 'z') + "\n");
}
