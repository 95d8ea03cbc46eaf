#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

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
