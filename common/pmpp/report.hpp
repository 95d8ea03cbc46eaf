/// @file report.hpp
/// @brief One results table, printed for people and written as JSON for the record.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "pmpp/cli.hpp"

namespace pmpp {

/// A table cell: the text people read and, for numbers, the value JSON keeps at full precision.
struct Cell {
  std::string text;
  std::optional<double> number;

  Cell(const char* s) : text(s) {}  // NOLINT: cells are built from literals all the time
  Cell(std::string s) : text(std::move(s)) {}  // NOLINT
  /// A number shown with @p decimals digits after the point.
  static Cell num(double value, int decimals = 3) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    Cell c{std::string(buf)};
    if (std::isfinite(value)) c.number = value;
    return c;
  }
  static Cell none() { return Cell{"-"}; }
};

class Table {
 public:
  explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}

  void add_row(std::vector<Cell> cells) {
    cells.resize(columns_.size(), Cell::none());
    rows_.push_back(std::move(cells));
  }
  /// A free-text line printed under the table (and kept in the JSON as a note).
  void add_note(std::string note) { notes_.push_back(std::move(note)); }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }

  void print(std::ostream& out) const {
    std::vector<std::size_t> width(columns_.size());
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      width[c] = columns_[c].size();
      for (const auto& row : rows_) width[c] = std::max(width[c], row[c].text.size());
    }
    auto line = [&](auto&& text_of) {
      std::string s;
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        std::string t = text_of(c);
        s += (c ? "  " : "") + t + std::string(width[c] - t.size(), ' ');
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out << s << '\n';
    };
    line([&](std::size_t c) { return columns_[c]; });
    line([&](std::size_t c) { return std::string(width[c], '-'); });
    for (const auto& row : rows_) line([&](std::size_t c) { return row[c].text; });
    for (const auto& n : notes_) out << n << '\n';
  }

  /// {"columns": [...], "rows": [{column: value}], "notes": [...]}: numbers as numbers.
  std::string to_json() const {
    std::ostringstream out;
    out << "{\"columns\": [";
    for (std::size_t c = 0; c < columns_.size(); ++c) out << (c ? ", " : "") << quote(columns_[c]);
    out << "], \"rows\": [";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      out << (r ? ",\n    " : "\n    ") << '{';
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        out << (c ? ", " : "") << quote(columns_[c]) << ": ";
        if (rows_[r][c].number) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.9g", *rows_[r][c].number);
          out << buf;
        } else {
          out << quote(rows_[r][c].text);
        }
      }
      out << '}';
    }
    out << "], \"notes\": [";
    for (std::size_t n = 0; n < notes_.size(); ++n) out << (n ? ", " : "") << quote(notes_[n]);
    out << "]}";
    return out.str();
  }

  static std::string quote(const std::string& s) {
    std::string q = "\"";
    for (char ch : s) {
      if (ch == '"' || ch == '\\') q += '\\', q += ch;
      else if (ch == '\n') q += "\\n";
      else if (static_cast<unsigned char>(ch) < 0x20) q += ' ';
      else q += ch;
    }
    return q + '"';
  }

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
  std::vector<std::string> notes_;
};

/// Write a recorded run: which program, on which device, with which arguments, and its tables.
inline void write_run_json(const std::string& path, const std::string& program, const std::string& device,
                           const std::string& arguments, const std::vector<std::pair<std::string, const Table*>>& tables) {
  std::ofstream out(path);
  if (!out) throw UsageError("cannot write '" + path + "'");
  out << "{\n  \"program\": " << Table::quote(program) << ",\n  \"device\": " << Table::quote(device)
      << ",\n  \"arguments\": " << Table::quote(arguments) << ",\n  \"tables\": {";
  for (std::size_t i = 0; i < tables.size(); ++i)
    out << (i ? "," : "") << "\n    " << Table::quote(tables[i].first) << ": " << tables[i].second->to_json();
  out << "\n  }\n}\n";
}

/// The command line as one string, for the record.
inline std::string command_line(int argc, const char* const* argv) {
  std::string s;
  for (int i = 1; i < argc; ++i) s += (i > 1 ? " " : "") + std::string(argv[i]);
  return s;
}

}  // namespace pmpp
