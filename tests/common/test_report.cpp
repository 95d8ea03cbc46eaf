#include <catch2/catch_test_macros.hpp>
#include <sstream>

#include "pmpp/report.hpp"

TEST_CASE("table prints aligned columns and notes", "[report]") {
  pmpp::Table t({"stage", "ms"});
  t.add_row({"01_basic", pmpp::Cell::num(1.23456, 2)});
  t.add_note("a note");
  std::ostringstream out;
  t.print(out);
  CHECK(out.str() == "stage     ms\n--------  ----\n01_basic  1.23\na note\n");
}

TEST_CASE("table JSON keeps numbers as numbers and escapes text", "[report]") {
  pmpp::Table t({"name", "value"});
  t.add_row({"say \"hi\"", pmpp::Cell::num(0.125, 1)});
  t.add_row({"missing"});
  const std::string json = t.to_json();
  CHECK(json.find("\"value\": 0.125") != std::string::npos);  // full precision, not the printed "0.1"
  CHECK(json.find("\"say \\\"hi\\\"\"") != std::string::npos);
  CHECK(json.find("\"value\": \"-\"") != std::string::npos);
}
