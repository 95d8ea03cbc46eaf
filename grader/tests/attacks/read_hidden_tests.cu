// attack: find the hidden tests (--hidden-tests or PMPP_HIDDEN_TESTS_DIR on any command line, and
//         where they are known to be), print them, and copy them where another process could read
//         them later (/dev/shm, /tmp).
// exercise: max_reduction
// base: starter
// earns: nothing
namespace {
struct ReadHiddenTests {
  ReadHiddenTests() {
    std::vector<std::string> folders = attack::arguments_after("--hidden-tests");
    for (const std::string& d : attack::arguments_starting("-DPMPP_HIDDEN_TESTS_DIR=")) folders.push_back(d);
    folders.push_back("@HIDDEN_TESTS@");
    std::string loot;
    for (const std::string& folder : folders)
      for (const char* file : {"/ch10/test_max_reduction.cpp", "/ch07/test_conv1d_basic.cpp"})
        loot += attack::read_file(folder + file);
    std::printf("hidden tests read: %zu bytes\n%s\n", loot.size(), loot.c_str());
    std::fflush(stdout);
    if (!loot.empty()) {
      attack::write_file("/dev/shm/pmpp-leak", loot);
      attack::write_file("/tmp/pmpp-leak", loot);
    }
  }
} read_hidden_tests;
}  // namespace
