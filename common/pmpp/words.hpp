/// @file words.hpp
/// @brief Text for people at a terminal: counts with the right plural ("1 thread", "2 threads") and
/// words wrapped to the 100 columns every line a program prints fits in.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace pmpp {

/// The width every line a program prints fits in: tables, notes, help and messages.
inline constexpr std::size_t kTerminalWidth = 100;

/// "1 thread", "2 threads", "0 threads"; @p plural for words that do not just add an s
/// (count_of(3, "entry", "entries")).
inline std::string count_of(long long count, const std::string& singular, const std::string& plural = "") {
  return std::to_string(count) + " " + (count == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

/// @p text split at spaces into lines of at most @p width characters; a word longer than @p width gets a
/// line of its own (it is never broken, so that a path or an address stays whole). Runs of spaces
/// between words become one.
inline std::vector<std::string> wrap_lines(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string line;
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

/// @p text as lines of at most @p width columns, each ending in a newline: the first starts with
/// @p first, the others with @p indent (a hanging indent). A word too long for an indented line starts
/// its line instead of the indent, so that it is never broken.
inline std::string wrap_text(const std::string& text, const std::string& first = "", const std::string& indent = "",
                             std::size_t width = kTerminalWidth) {
  std::istringstream words(text);
  std::string out, line = first;
  bool line_empty = true;
  for (std::string word; words >> word;) {
    if (!line_empty && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent.size() + word.size() > width ? "" : indent;
      line_empty = true;
    }
    line += (line_empty ? "" : " ") + word;
    line_empty = false;
  }
  return out + line + "\n";
}

}  // namespace pmpp
