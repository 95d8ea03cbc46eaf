// main() of the test executables that run in one process: Catch2's session, with an exit status that
// does not depend on the Catch2 version (see exit_status.hpp).
#include <catch2/catch_session.hpp>

#include "exit_status.hpp"

int main(int argc, char* argv[]) { return pmpp_test::exit_status(Catch::Session().run(argc, argv)); }
