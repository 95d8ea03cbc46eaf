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
#include <cstdlib>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pmpp/cli.hpp"
#include "pmpp/words.hpp"

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

/// A table printed for a terminal: every line fits kWidth (100) columns by design.
///
/// When the columns at their natural widths are wider than that, the cells of text columns (those with
/// a cell of several words that is not a number) are wrapped at word boundaries, the widest column
/// first, each continuation line starting under its column; numbers, header labels and single words
/// never wrap. A table that still does not fit with every text column as narrow as its longest word is
/// printed in parts, one under the other: each part repeats the first column (the row's name) and takes
/// as many of the next columns as fit, a group's columns together. Chapter code should not rely on
/// that: a table made for the terminal (fewer, shorter columns, or two tables) reads better than one cut
/// in parts. Notes wrap at kWidth with a hanging indent.
class Table {
 public:
  /// The width every printed line fits in.
  static constexpr std::size_t kWidth = kTerminalWidth;

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

  /// The table, its text cells wrapped (or, failing that, the table in parts) so that every line fits
  /// kWidth columns, then its notes, wrapped.
  void print(std::ostream& out) const {
    const std::vector<std::vector<std::size_t>> parts = parts_that_fit();
    for (std::size_t p = 0; p < parts.size(); ++p) {
      if (p) out << '\n';
      print_layout(out, layout(parts[p]));
    }
    for (const auto& note : notes_) out << wrap_text(note, "", std::string(hanging_indent(note), ' '), kWidth);
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
          out << json_number(*rows_[r][c].number);
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

  /// @p value in the fewest significant digits (at least 9) that read back as the same double: short
  /// for the measurements, exact for counts such as 2MNK = 137438953472.
  static std::string json_number(double value) {
    char buf[64];
    for (int digits = 9; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, value);
      if (std::strtod(buf, nullptr) == value) break;
    }
    return buf;
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
  /// The columns of one printed part (indices into columns_) and how wide each prints.
  struct Layout {
    std::vector<std::size_t> columns;
    std::vector<std::string> group, label;  ///< "group: label" split; group empty when there is none
    std::vector<std::size_t> width;
    bool grouped = false;
  };

  /// A group's name sits over its first column and may span the group: @p width with the group's last
  /// column widened where the name is longer than the columns under it.
  static std::vector<std::size_t> widen_for_groups(const Layout& l, std::vector<std::size_t> width) {
    const std::size_t n = width.size();
    for (std::size_t c = 0; c < n;) {
      std::size_t end = c + 1;
      while (!l.group[c].empty() && end < n && l.group[end] == l.group[c]) ++end;
      std::size_t span = 2 * (end - c - 1);
      for (std::size_t k = c; k < end; ++k) span += width[k];
      if (l.group[c].size() > span) width[end - 1] += l.group[c].size() - span;
      c = end;
    }
    return width;
  }
  static std::size_t total_width(const std::vector<std::size_t>& width) {
    std::size_t total = width.empty() ? 0 : 2 * (width.size() - 1);
    for (std::size_t w : width) total += w;
    return total;
  }
  static std::size_t longest_word(const std::string& text) {
    std::size_t longest = 0, run = 0;
    for (char ch : text) {
      run = ch == ' ' ? 0 : run + 1;
      longest = std::max(longest, run);
    }
    return longest;
  }

  /// Natural widths (the widest cell or label of each column) and the least each column may take:
  /// a text column its longest word, label or number; any other column its natural width.
  void measure(const Layout& l, std::vector<std::size_t>& natural, std::vector<std::size_t>& least,
               std::vector<bool>& wraps) const {
    const std::size_t n = l.columns.size();
    natural.assign(n, 0);
    least.assign(n, 0);
    wraps.assign(n, false);
    for (std::size_t c = 0; c < n; ++c) {
      natural[c] = least[c] = l.label[c].size();
      for (const auto& row : rows_) {
        const Cell& cell = row[l.columns[c]];
        natural[c] = std::max(natural[c], cell.text.size());
        const bool words = !cell.number && cell.text.find(' ') != std::string::npos;
        wraps[c] = wraps[c] || words;
        least[c] = std::max(least[c], words ? longest_word(cell.text) : cell.text.size());
      }
      if (!wraps[c]) least[c] = natural[c];
    }
  }

  Layout split_names(const std::vector<std::size_t>& columns) const {
    Layout l;
    l.columns = columns;
    for (std::size_t c : columns) {
      const std::size_t colon = columns_[c].find(": ");
      l.group.push_back(colon == std::string::npos ? "" : columns_[c].substr(0, colon));
      l.label.push_back(colon == std::string::npos ? columns_[c] : columns_[c].substr(colon + 2));
      l.grouped = l.grouped || colon != std::string::npos;
    }
    return l;
  }

  /// The least width @p columns print in, every text column wrapped to its longest word.
  std::size_t least_width(const std::vector<std::size_t>& columns) const {
    const Layout l = split_names(columns);
    std::vector<std::size_t> natural, least;
    std::vector<bool> wraps;
    measure(l, natural, least, wraps);
    return total_width(widen_for_groups(l, least));
  }

  /// All columns in one part when they fit; else parts that each repeat the first column and take as
  /// many of the next as fit (a group's columns stay together), so that no line is wider than kWidth.
  std::vector<std::vector<std::size_t>> parts_that_fit() const {
    std::vector<std::size_t> all(columns_.size());
    for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
    if (all.size() < 2 || least_width(all) <= kWidth) return {all};
    const Layout names = split_names(all);
    std::vector<std::vector<std::size_t>> parts{{0}};
    for (std::size_t c = 1; c < all.size();) {
      std::size_t end = c + 1;  // the group that starts at c, or c alone
      while (!names.group[c].empty() && end < all.size() && names.group[end] == names.group[c]) ++end;
      std::vector<std::size_t> wider = parts.back();
      for (std::size_t k = c; k < end; ++k) wider.push_back(k);
      if (parts.back().size() > 1 && least_width(wider) > kWidth) {
        parts.push_back({0});
        for (std::size_t k = c; k < end; ++k) parts.back().push_back(k);
      } else {
        parts.back() = wider;
      }
      c = end;
    }
    return parts;
  }

  /// Widths for @p columns: natural where they fit, else the widest text column narrowed first, one
  /// character at a time, until the line fits or every text column is down to its longest word.
  Layout layout(const std::vector<std::size_t>& columns) const {
    Layout l = split_names(columns);
    std::vector<std::size_t> natural, least;
    std::vector<bool> wraps;
    measure(l, natural, least, wraps);
    std::vector<std::size_t> width = natural;
    while (total_width(widen_for_groups(l, width)) > kWidth) {
      std::size_t widest = width.size();
      for (std::size_t c = 0; c < width.size(); ++c)
        if (wraps[c] && width[c] > least[c] && (widest == width.size() || width[c] > width[widest])) widest = c;
      if (widest == width.size()) break;  // as narrow as it gets (only a one-part table can end here)
      --width[widest];
    }
    l.width = widen_for_groups(l, width);
    return l;
  }

  void print_layout(std::ostream& out, const Layout& l) const {
    const std::size_t n = l.columns.size();
    // One row of cells, each wrapped to its column's width: as many lines as its tallest cell.
    auto print_row = [&](const std::vector<std::string>& texts) {
      std::vector<std::vector<std::string>> cell_lines(n);
      std::size_t height = 1;
      for (std::size_t c = 0; c < n; ++c) {
        cell_lines[c] = texts[c].size() > l.width[c] ? wrap_lines(texts[c], l.width[c]) : std::vector<std::string>{texts[c]};
        height = std::max(height, cell_lines[c].size());
      }
      for (std::size_t h = 0; h < height; ++h) {
        std::string s;
        for (std::size_t c = 0; c < n; ++c) {
          const std::string t = h < cell_lines[c].size() ? cell_lines[c][h] : "";
          s += (c ? "  " : "") + t + std::string(t.size() < l.width[c] ? l.width[c] - t.size() : 0, ' ');
        }
        while (!s.empty() && s.back() == ' ') s.pop_back();
        out << s << '\n';
      }
    };
    if (l.grouped) {
      std::string s;
      std::size_t column_start = 0;
      for (std::size_t c = 0; c < n; ++c) {
        if (!l.group[c].empty() && (c == 0 || l.group[c - 1] != l.group[c])) {
          if (s.size() < column_start) s.append(column_start - s.size(), ' ');
          else if (!s.empty()) s += ' ';
          s += l.group[c];
        }
        column_start += l.width[c] + 2;
      }
      out << s << '\n';
    }
    print_row(l.label);
    std::vector<std::string> dashes;
    for (std::size_t w : l.width) dashes.push_back(std::string(w, '-'));
    print_row(dashes);
    for (const auto& row : rows_) {
      std::vector<std::string> texts;
      for (std::size_t c : l.columns) texts.push_back(row[c].text);
      print_row(texts);
    }
  }

  /// Continuation lines of a note start under its text: after "(a) " or "- ", else two columns in.
  static std::size_t hanging_indent(const std::string& note) {
    if (note.rfind("- ", 0) == 0) return 2;
    if (note.size() > 3 && note[0] == '(' && note[2] == ')' && note[3] == ' ') return 4;
    return 2;
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
