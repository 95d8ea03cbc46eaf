// Test cases that exist to be run by tests/CMakeLists.txt's exit-status checks, never on their own:
// they are hidden ([.]) from a plain run.
#include <catch2/catch_test_macros.hpp>

TEST_CASE("exactly four failed checks", "[.][four_failures]") {
  for (int check = 0; check < 4; ++check) CHECK(check < 0);
}

TEST_CASE("a case that skips", "[.][skips]") { SKIP("nothing to test here"); }
