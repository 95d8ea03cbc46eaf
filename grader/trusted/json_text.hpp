/// @file json_text.hpp
/// @brief JSON values as text, for the one-line facts the trusted process writes for grade: strings
/// escaped whatever bytes they hold (ncu's report is text the code under test can shape), numbers
/// finite or null.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace pmpp_grader {

/// @p text as a JSON string: quotes, backslashes and control bytes escaped; bytes that are not ASCII
/// become \u00XX, so the line is valid JSON whatever the text's encoding.
inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// @p value as a JSON number; null where it is not a finite number, or where @p known is false.
inline std::string json_number(double value, bool known = true) {
  if (!known || !std::isfinite(value)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

inline std::string json_bool(bool value) { return value ? "true" : "false"; }

}  // namespace pmpp_grader
