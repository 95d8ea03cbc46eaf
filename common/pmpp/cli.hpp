/// @file cli.hpp
/// @brief A small typed command-line parser: `--name value` or `--name=value`, ranges, choices, --help.
///
/// Why not a library: no command-line library is installed on every machine this project supports
/// (the GPU machines are offline with no package manager), and the project writes its code fresh
/// rather than vendoring others'. So this is ~150 lines, unit-tested in tests/common/test_cli.cpp.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "pmpp/words.hpp"

namespace pmpp {

/// Bad command-line input or a bad input file: the program prints one line and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Cli {
 public:
  Cli(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {}

  /// An integer option in [min, max].
  template <class Int, class = std::enable_if_t<std::is_integral_v<Int>>>
  Cli& option(std::string name, Int& target, std::string help, std::int64_t min, std::int64_t max) {
    std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    add(std::move(name), "N", std::move(help), std::to_string(target), [&target, min, max, range](std::string_view flag, std::string_view text) {
      std::int64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
        throw UsageError(std::string(flag) + " must be an integer in " + range + ", got '" + std::string(text) + "'");
      target = static_cast<Int>(value);
    });
    return *this;
  }

  /// A floating-point option in [min, max].
  Cli& option(std::string name, double& target, std::string help, double min, double max) {
    std::ostringstream range;
    range << '[' << min << ", " << max << ']';
    std::ostringstream current;
    current << target;
    add(std::move(name), "X", std::move(help), current.str(), [&target, min, max, r = range.str()](std::string_view flag, std::string_view text) {
      std::string copy(text);
      std::size_t used = 0;
      double value = 0;
      try {
        value = std::stod(copy, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != copy.size() || !(value >= min && value <= max))
        throw UsageError(std::string(flag) + " must be a number in " + r + ", got '" + copy + "'");
      target = value;
    });
    return *this;
  }

  /// A text option; if @p choices is not empty the value must be one of them.
  Cli& option(std::string name, std::string& target, std::string help, std::vector<std::string> choices = {}) {
    std::string meta = choices.empty() ? "TEXT" : join(choices, "|");
    add(std::move(name), meta, std::move(help), target, [&target, choices](std::string_view flag, std::string_view text) {
      bool allowed = choices.empty();
      for (const auto& c : choices) allowed = allowed || c == text;
      if (!allowed || text.empty())
        throw UsageError(std::string(flag) + " must be " + (choices.empty() ? std::string("non-empty") : "one of " + join(choices, ", ")) +
                         ", got '" + std::string(text) + "'");
      target = std::string(text);
    });
    return *this;
  }

  /// A file name (shown as FILE in --help).
  Cli& file(std::string name, std::string& target, std::string help) {
    add(std::move(name), "FILE", std::move(help), target, [&target](std::string_view flag, std::string_view text) {
      if (text.empty()) throw UsageError(std::string(flag) + " needs a file name");
      target = std::string(text);
    });
    return *this;
  }

  /// A switch that takes no value.
  Cli& flag(std::string name, bool& target, std::string help) {
    entries_.push_back({std::move(name), "", std::move(help), "", [&target](std::string_view, std::string_view) { target = true; }});
    return *this;
  }

  /// Parse the command line. Returns false after printing --help (the caller exits 0);
  /// throws UsageError for anything it cannot accept.
  bool parse(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::fputs(help().c_str(), stdout);
        return false;
      }
      if (arg.substr(0, 2) != "--") throw UsageError("unexpected argument '" + std::string(arg) + "'");
      std::string_view name = arg, value;
      bool has_value = false;
      if (const auto eq = arg.find('='); eq != std::string_view::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        has_value = true;
      }
      const Entry* entry = find(name);
      if (entry == nullptr) throw UsageError("unknown option '" + std::string(name) + "'");
      if (entry->meta.empty()) {
        if (has_value) throw UsageError(std::string(name) + " takes no value");
      } else if (!has_value) {
        if (i + 1 >= argc) throw UsageError(std::string(name) + " needs a value");
        value = argv[++i];
      }
      entry->apply(name, value);
    }
    return true;
  }

  /// The usage line, the summary and one entry per option, every line at most kTerminalWidth columns:
  /// descriptions wrap under their own column, and one whose option is too long to leave room for it
  /// starts on the next line.
  std::string help() const {
    constexpr std::size_t kDescriptionColumn = 30;
    const std::string indent(kDescriptionColumn, ' ');
    std::string out = "usage: " + program_ + " [options]\n\n";
    std::istringstream paragraphs(summary_);  // a line break in the summary is kept
    for (std::string paragraph; std::getline(paragraphs, paragraph);) out += wrap_text(paragraph);
    out += "\noptions:\n";
    auto entry = [&](const std::string& left, const std::string& description) {
      if (left.size() + 1 > kDescriptionColumn) out += left + "\n" + wrap_text(description, indent, indent);
      else out += wrap_text(description, left + std::string(kDescriptionColumn - left.size(), ' '), indent);
    };
    for (const auto& e : entries_)
      entry("  " + e.name + (e.meta.empty() ? "" : " " + e.meta),
            e.help + (e.current.empty() ? "" : " (default " + e.current + ")"));
    entry("  --help", "show this text");
    return out;
  }

 private:
  struct Entry {
    std::string name, meta, help, current;
    std::function<void(std::string_view, std::string_view)> apply;
  };
  void add(std::string name, std::string meta, std::string help, std::string current,
           std::function<void(std::string_view, std::string_view)> apply) {
    entries_.push_back({std::move(name), std::move(meta), std::move(help), std::move(current), std::move(apply)});
  }
  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  static std::string join(const std::vector<std::string>& parts, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
    return s;
  }

  std::string program_, summary_;
  std::vector<Entry> entries_;
};

}  // namespace pmpp
