/// @file report.hpp
/// @brief Results tables, printed for people, and the run record (`--json`) that keeps them for the book.
///
/// A table's column names are its JSON keys, so they are unique. A column named "group: label" prints
/// under a header line "group" shared with its neighbours of the same group ("efficiency: text",
/// "efficiency: counted" print as "efficiency" over "text  counted"). A note is one logical line:
/// printing wraps it, the record keeps it whole, and the book shows each note on a line of its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pmpp/cli.hpp"

namespace pmpp {

/// @p value with @p decimals digits after the point, rounded half away from zero, the way the text
/// rounds (3.125 gives "3.13"). printf alone rounds the binary value half to even and prints 3.12.
inline std::string fixed(double value, int decimals) {
  char buf[64];
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::isfinite(value) && std::fabs(value) * scale < 1e15 ? std::round(value * scale) / scale
                                                                                  : value;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, rounded);
  return buf;
}

/// A table cell: the text people read and, for numbers, the value JSON keeps at full precision.
struct Cell {
  std::string text;
  std::optional<double> number;

  Cell(const char* s) : text(s) {}  // NOLINT: cells are built from literals all the time
  Cell(std::string s) : text(std::move(s)) {}  // NOLINT
  /// A number shown with @p decimals digits after the point (see fixed()).
  static Cell num(double value, int decimals = 3) {
    Cell c{fixed(value, decimals)};
    if (std::isfinite(value)) c.number = value;
    return c;
  }
  static Cell none() { return Cell{"-"}; }
};

class Table {
 public:
  /// Notes longer than this are wrapped when printed.
  static constexpr std::size_t kNoteWidth = 110;

  /// @throws std::logic_error for an empty or repeated column name (names are the rows' JSON keys).
  explicit Table(std::vector<std::string> columns) : columns_(std::move(columns)) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].empty()) throw std::logic_error("a table column needs a name");
      if (std::find(columns_.begin(), columns_.begin() + static_cast<std::ptrdiff_t>(c), columns_[c]) !=
          columns_.begin() + static_cast<std::ptrdiff_t>(c))
        throw std::logic_error("table column '" + columns_[c] + "' appears twice");
    }
  }

  void add_row(std::vector<Cell> cells) {
    cells.resize(columns_.size(), Cell::none());
    rows_.push_back(std::move(cells));
  }
  /// One logical note under the table, as long as it needs to be (printing wraps it).
  void add_note(std::string note) { notes_.push_back(std::move(note)); }
  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  const std::vector<std::string>& notes() const { return notes_; }

  void print(std::ostream& out) const {
    const std::size_t n = columns_.size();
    std::vector<std::string> group(n), label(n);
    bool grouped = false;
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t colon = columns_[c].find(": ");
      if (colon == std::string::npos) {
        label[c] = columns_[c];
      } else {
        group[c] = columns_[c].substr(0, colon);
        label[c] = columns_[c].substr(colon + 2);
        grouped = true;
      }
    }
    std::vector<std::size_t> width(n);
    for (std::size_t c = 0; c < n; ++c) {
      width[c] = label[c].size();
      for (const auto& row : rows_) width[c] = std::max(width[c], row[c].text.size());
    }
    // A group's name sits over its first column and may span the group: widen the group's last column
    // if the name is longer than the columns under it.
    std::vector<bool> starts_group(n, false);
    for (std::size_t c = 0; c < n;) {
      std::size_t end = c + 1;
      while (!group[c].empty() && end < n && group[end] == group[c]) ++end;
      starts_group[c] = !group[c].empty();
      std::size_t span = 2 * (end - c - 1);
      for (std::size_t k = c; k < end; ++k) span += width[k];
      if (group[c].size() > span) width[end - 1] += group[c].size() - span;
      c = end;
    }
    auto line = [&](auto&& text_of) {
      std::string s;
      for (std::size_t c = 0; c < n; ++c) {
        std::string t = text_of(c);
        s += (c ? "  " : "") + t + std::string(t.size() < width[c] ? width[c] - t.size() : 0, ' ');
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out << s << '\n';
    };
    if (grouped) {
      std::string s;
      std::size_t column_start = 0;
      for (std::size_t c = 0; c < n; ++c) {
        if (starts_group[c]) {
          if (s.size() < column_start) s.append(column_start - s.size(), ' ');
          else if (!s.empty()) s += ' ';
          s += group[c];
        }
        column_start += width[c] + 2;
      }
      out << s << '\n';
    }
    line([&](std::size_t c) { return label[c]; });
    line([&](std::size_t c) { return std::string(width[c], '-'); });
    for (const auto& row : rows_) line([&](std::size_t c) { return row[c].text; });
    for (const auto& note : notes_) print_wrapped(out, note);
  }

  /// {"columns": [...], "rows": [{column: value}], "printed": [[text]], "notes": [...]}: each value at
  /// full precision (numbers as numbers), and each cell as it was printed.
  std::string to_json() const {
    std::ostringstream out;
    out << "{\"columns\": " << quote_list(columns_) << ",\n      \"rows\": [";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      out << (r ? ",\n        " : "\n        ") << '{';
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
    out << "],\n      \"printed\": [";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      std::vector<std::string> texts;
      for (const Cell& cell : rows_[r]) texts.push_back(cell.text);
      out << (r ? ",\n        " : "\n        ") << quote_list(texts);
    }
    out << "],\n      \"notes\": [";
    for (std::size_t k = 0; k < notes_.size(); ++k) out << (k ? ",\n        " : "\n        ") << quote(notes_[k]);
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
  static std::string quote_list(const std::vector<std::string>& items) {
    std::string s = "[";
    for (std::size_t k = 0; k < items.size(); ++k) s += (k ? ", " : "") + quote(items[k]);
    return s + "]";
  }

 private:
  /// A note wrapped at kNoteWidth; continuation lines are indented under the text of a "(a) " or
  /// "- " note.
  static void print_wrapped(std::ostream& out, const std::string& note) {
    std::size_t indent = 0;
    if (note.rfind("- ", 0) == 0) indent = 2;
    else if (note.size() > 3 && note[0] == '(' && note[2] == ')' && note[3] == ' ') indent = 4;
    std::istringstream words(note);
    std::string line;
    for (std::string word; words >> word;) {
      if (!line.empty() && line.size() + 1 + word.size() > kNoteWidth) {
        out << line << '\n';
        line = std::string(indent, ' ') + word;
      } else {
        line += (line.empty() ? "" : " ") + word;
      }
    }
    out << line << '\n';
  }

  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
  std::vector<std::string> notes_;
};

/// The command line as one string, for the record.
inline std::string command_line(int argc, const char* const* argv) {
  std::string s;
  for (int i = 1; i < argc; ++i) s += (i > 1 ? " " : "") + std::string(argv[i]);
  return s;
}

/// What a program writes with `--json FILE`: which program, on which device, with which arguments, on
/// which problem, how it ended, and the tables it printed, each with a title in words. A program
/// writes it on every path that prints tables, so a run without a GPU records its analysis too.
class RunRecord {
 public:
  /// @param arguments  the command line after the program's name (command_line(argc, argv))
  /// @param path       where to write (the --json value); empty: finish() writes nothing.
  RunRecord(std::string program, std::string arguments, std::string path)
      : program_(std::move(program)), arguments_(std::move(arguments)), path_(std::move(path)) {}

  void set_device(std::string name) { device_ = std::move(name); }
  /// The problem in words, e.g. "2^24 floats, sum": the book's captions name it.
  void set_problem(std::string words) { problem_ = std::move(words); }
  /// Keep a copy of @p table under @p key (unique), with @p title saying what it shows.
  void add(const std::string& key, std::string title, const Table& table) {
    for (const auto& entry : tables_)
      if (entry.key == key) throw std::logic_error("run record: table '" + key + "' added twice");
    tables_.push_back({key, std::move(title), table});
  }

  /// Write the record (when a path was given) and return @p status, so that `return record.finish(s);`
  /// ends a program. @throws UsageError when the file cannot be written.
  int finish(int status) const {
    if (path_.empty()) return status;
    std::ofstream out(path_);
    out << to_json(status);
    if (!out) throw UsageError("cannot write '" + path_ + "'");
    return status;
  }

  std::string to_json(int status) const {
    std::ostringstream out;
    out << "{\n  \"program\": " << Table::quote(program_) << ",\n  \"device\": " << Table::quote(device_)
        << ",\n  \"arguments\": " << Table::quote(arguments_) << ",\n  \"problem\": " << Table::quote(problem_)
        << ",\n  \"exit_status\": " << status << ",\n  \"tables\": {";
    for (std::size_t i = 0; i < tables_.size(); ++i)
      out << (i ? "," : "") << "\n    " << Table::quote(tables_[i].key) << ": {\"title\": "
          << Table::quote(tables_[i].title) << ",\n      " << tables_[i].table.to_json().substr(1);
    out << "\n  }\n}\n";
    return out.str();
  }

 private:
  struct Entry {
    std::string key, title;
    Table table;
  };
  std::string program_, arguments_, path_;
  std::string device_ = "no GPU";
  std::string problem_;
  std::vector<Entry> tables_;
};

}  // namespace pmpp
