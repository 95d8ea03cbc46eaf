#include <catch2/catch_test_macros.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "pmpp/report.hpp"

TEST_CASE("table prints aligned columns and notes", "[report]") {
  pmpp::Table t({"stage", "ms"});
  t.add_row({"01_basic", pmpp::Cell::num(1.23456, 2)});
  t.add_note("a note");
  std::ostringstream out;
  t.print(out);
  CHECK(out.str() == "stage     ms\n--------  ----\n01_basic  1.23\na note\n");
}

TEST_CASE("table JSON keeps numbers as numbers, the printed text beside them, and escapes text", "[report]") {
  pmpp::Table t({"name", "value"});
  t.add_row({"say \"hi\"", pmpp::Cell::num(0.125, 1)});
  t.add_row({"missing"});
  const std::string json = t.to_json();
  CHECK(json.find("\"value\": 0.125") != std::string::npos);  // full precision, not the printed "0.1"
  CHECK(json.find("[\"say \\\"hi\\\"\", \"0.1\"]") != std::string::npos);  // and what was printed
  CHECK(json.find("\"say \\\"hi\\\"\"") != std::string::npos);
  CHECK(json.find("\"value\": \"-\"") != std::string::npos);
}

TEST_CASE("column names are unique: they are the keys of every row in the JSON", "[report]") {
  CHECK_THROWS_AS(pmpp::Table({"stage", "counted", "counted"}), std::logic_error);
  CHECK_THROWS_AS(pmpp::Table({"stage", ""}), std::logic_error);
  CHECK_NOTHROW(pmpp::Table({"efficiency: counted", "requests: counted"}));
}

TEST_CASE("columns named 'group: label' print under one group header", "[report]") {
  pmpp::Table t({"stage", "efficiency: text", "efficiency: counted", "requests: text", "requests: counted"});
  t.add_row({"01", "0.335", "0.287", "1149", "1151"});
  std::ostringstream out;
  t.print(out);
  CHECK(out.str() ==
        "       efficiency      requests\n"
        "stage  text   counted  text  counted\n"
        "-----  -----  -------  ----  -------\n"
        "01     0.335  0.287    1149  1151\n");
}

TEST_CASE("a group name longer than its columns widens them", "[report]") {
  pmpp::Table t({"x", "a long group name: v"});
  t.add_row({"1", "2"});
  std::ostringstream out;
  t.print(out);
  CHECK(out.str() == "   a long group name\nx  v\n-  -----------------\n1  2\n");
}

TEST_CASE("a long note is one note in the JSON and wraps when printed, footnotes indented", "[report]") {
  pmpp::Table t({"a"});
  const std::string words(60, 'w');
  const std::string note = "(a) " + words + " " + words;
  t.add_note(note);
  std::ostringstream out;
  t.print(out);
  CHECK(out.str() == "a\n-\n(a) " + words + "\n    " + words + "\n");
  CHECK(t.notes().size() == 1);
  CHECK(t.to_json().find(note) != std::string::npos);
}

TEST_CASE("numbers round half away from zero, as the text prints them", "[report]") {
  CHECK(pmpp::fixed(3.125, 2) == "3.13");    // exactly representable: printf alone gives 3.12
  CHECK(pmpp::fixed(-3.125, 2) == "-3.13");
  CHECK(pmpp::fixed(3.1249, 2) == "3.12");
  CHECK(pmpp::fixed(9.5703125, 2) == "9.57");
  CHECK(pmpp::fixed(0.5, 0) == "1");
  CHECK(pmpp::fixed(1e20, 1) == "100000000000000000000.0");
  CHECK(pmpp::Cell::num(3.125, 2).text == "3.13");
}

TEST_CASE("a run record keeps program, device, problem, status and titled tables", "[report]") {
  const char* argv[] = {"prog", "--n", "7"};
  const std::string path = "test_report_record.json";
  pmpp::RunRecord record("prog", pmpp::command_line(3, argv), path);
  record.set_problem("sum of 7 floats");
  pmpp::Table t({"stage", "ms"});
  t.add_row({"01", pmpp::Cell::num(0.5, 1)});
  record.add("results", "Stages side by side", t);
  CHECK_THROWS_AS(record.add("results", "again", t), std::logic_error);

  CHECK(record.finish(77) == 77);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  CHECK(json.find("\"program\": \"prog\"") != std::string::npos);
  CHECK(json.find("\"device\": \"no GPU\"") != std::string::npos);
  CHECK(json.find("\"arguments\": \"--n 7\"") != std::string::npos);
  CHECK(json.find("\"problem\": \"sum of 7 floats\"") != std::string::npos);
  CHECK(json.find("\"exit_status\": 77") != std::string::npos);
  CHECK(json.find("\"results\": {\"title\": \"Stages side by side\",") != std::string::npos);
  std::remove(path.c_str());

  pmpp::RunRecord quiet("prog", "", "");  // no --json: nothing written
  CHECK(quiet.finish(0) == 0);
}

namespace {
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
std::size_t widest(const std::string& text) {
  std::size_t w = 0;
  for (const auto& line : lines_of(text)) w = std::max(w, line.size());
  return w;
}
std::string printed(const pmpp::Table& t) {
  std::ostringstream out;
  t.print(out);
  return out.str();
}
// The words of @p column's cells as printed from row line @p first on: the continuation lines of a
// wrapped cell start at the column's first character.
std::string words_under(const std::vector<std::string>& lines, std::size_t first, std::size_t column) {
  std::string words;
  for (std::size_t k = first; k < lines.size(); ++k)
    if (lines[k].size() > column) words += (words.empty() ? "" : " ") + lines[k].substr(column);
  return words;
}
}  // namespace

TEST_CASE("a table narrower than 100 columns prints at its natural widths, long cells and all", "[report]") {
  pmpp::Table t({"stage", "ms", "why"});
  const std::string why = "a reason of eighty characters, which fits beside the other two columns easily..";
  t.add_row({"01_naive", pmpp::Cell::num(12.5, 1), why});
  CHECK(printed(t) == "stage     ms    why\n"
                      "--------  ----  " + std::string(why.size(), '-') + "\n"
                      "01_naive  12.5  " + why + "\n");
}

TEST_CASE("a wide text column wraps at word boundaries under its column; numbers do not wrap", "[report]") {
  pmpp::Table t({"stage", "median ms", "why they differ"});
  std::string why;
  for (int i = 0; i < 40; ++i) why += (i ? " " : "") + std::string("word") + std::to_string(i);
  t.add_row({"01_naive", pmpp::Cell::num(123456.789, 3), why});
  t.add_row({"02_tiled", pmpp::Cell::num(1.5, 3), "short"});
  const std::string text = printed(t);
  INFO(text);
  CHECK(widest(text) <= 100);
  CHECK(widest(text) >= 90);  // it wraps only as much as it must
  const auto lines = lines_of(text);
  REQUIRE(lines.size() > 4);
  CHECK(lines[0] == "stage     median ms   why they differ");
  const std::size_t column = lines[0].find("why");
  CHECK(lines[2].substr(0, column) == "01_naive  123456.789  ");  // the number whole, on the first line
  std::size_t row2 = 3;
  while (lines[row2].rfind("02_tiled", 0) != 0) {
    CHECK(lines[row2].substr(0, column) == std::string(column, ' '));  // continuations under the column
    ++row2;
  }
  CHECK(words_under({lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(row2)}, 2, column) == why);
  CHECK(lines[row2] == "02_tiled  1.500       short");
  CHECK(t.to_json().find(why) != std::string::npos);  // the record keeps the cell whole
}

TEST_CASE("text columns narrow from the widest down, until the line fits", "[report]") {
  pmpp::Table t({"a", "b"});
  const std::string x30(30, 'x'), x20(20, 'x'), y40(40, 'y'), y19(19, 'y');
  t.add_row({x30 + " " + x20, y40 + " " + y19});
  // 51 + 2 + 60 = 113 columns: b narrows alone to 51, then both together to 49.
  CHECK(printed(t) == "a" + std::string(50, ' ') + "b\n" + std::string(49, '-') + "  " + std::string(49, '-') + "\n" +
                          x30 + std::string(19, ' ') + "  " + y40 + "\n" + x20 + std::string(29, ' ') + "  " + y19 + "\n");
}

TEST_CASE("a long note wraps at 100 columns with a hanging indent", "[report]") {
  pmpp::Table t({"a"});
  std::string note;
  for (int i = 0; i < 20; ++i) note += (i ? " " : "") + std::string("note") + std::to_string(i);
  t.add_note(note);
  t.add_note("- " + note);
  const auto lines = lines_of(printed(t));
  REQUIRE(lines.size() == 2 + 2 + 2);
  CHECK(lines[2].size() <= 100);
  CHECK(lines[2].size() > 90);
  CHECK(lines[3].rfind("  note", 0) == 0);  // a plain note continues two columns in
  CHECK(lines[4].rfind("- note0 ", 0) == 0);
  CHECK(lines[5].rfind("  note", 0) == 0);  // a "- " item continues under its text
  CHECK(lines[2] + lines[3].substr(1) == note);
}

// Numbers never wrap, so numeric columns alone can be too wide for any terminal. Such a table prints in
// parts, each repeating the first column, so that no line is wider than 100 columns; chapter code should
// design its tables not to need this (a part printed apart from its neighbours reads worse).
TEST_CASE("a table whose numbers alone exceed 100 columns prints in parts that repeat the first column", "[report]") {
  std::vector<std::string> columns{"stage"};
  for (int c = 0; c < 12; ++c) columns.push_back("value " + std::to_string(c) + ": ms");
  pmpp::Table t(columns);
  std::vector<pmpp::Cell> row{"01_naive"};
  for (int c = 0; c < 12; ++c) row.push_back(pmpp::Cell::num(1234567.5 + c, 1));
  t.add_row(row);
  t.add_note("a note, once");
  const std::string text = printed(t);
  INFO(text);
  CHECK(widest(text) <= 100);
  const auto lines = lines_of(text);
  // Each part: group line, labels, dashes, one row; parts apart by an empty line; then the note.
  std::size_t parts = 0, values = 0;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].rfind("stage", 0) == 0) {
      ++parts;
      REQUIRE(k + 2 < lines.size());
      CHECK(lines[k + 2].rfind("01_naive", 0) == 0);
      for (std::size_t at = lines[k + 2].find("12345"); at != std::string::npos; at = lines[k + 2].find("12345", at + 1))
        ++values;
    }
  }
  CHECK(parts == 2);
  CHECK(values == 12);  // every value once, none cut
  CHECK(lines.back() == "a note, once");
  CHECK(text.find("value 3") != std::string::npos);  // the groups' names are kept over their columns
}

TEST_CASE("count_of says 1 thread and 2 threads", "[report][words]") {
  CHECK(pmpp::count_of(1, "thread") == "1 thread");
  CHECK(pmpp::count_of(2, "thread") == "2 threads");
  CHECK(pmpp::count_of(0, "thread") == "0 threads");
  CHECK(pmpp::count_of(1, "entry", "entries") == "1 entry");
  CHECK(pmpp::count_of(4, "entry", "entries") == "4 entries");
}

TEST_CASE("wrap_text keeps lines within the width with a hanging indent, and long words whole", "[report][words]") {
  CHECK(pmpp::wrap_text("one two three", "- ", "  ", 9) == "- one two\n  three\n");
  CHECK(pmpp::wrap_text("a https://a.very/long/address b", "", "    ", 12) == "a\nhttps://a.very/long/address\n    b\n");
  CHECK(pmpp::wrap_lines("aa bb cc", 5) == std::vector<std::string>{"aa bb", "cc"});
  CHECK(pmpp::wrap_lines("", 5) == std::vector<std::string>{""});
}

TEST_CASE("table JSON writes counts exactly and measurements short", "[report]") {
  pmpp::Table t({"flops", "ms"});
  t.add_row({pmpp::Cell::num(137438953472.0, 0), pmpp::Cell::num(0.1, 1)});
  const std::string json = t.to_json();
  CHECK(json.find("\"flops\": 137438953472,") != std::string::npos);  // %.9g alone would write 1.37438953e+11
  CHECK(json.find("\"ms\": 0.1}") != std::string::npos);
}
