// The read-only kernel behind the L2 flush and the measured DRAM limit: it must load every byte, or
// the limit it measures would be too fast. Each thread stores only if the words it read xor to one
// checksum, so that checksum planted in a single place shows whether that place was read.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "gpu_test.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/read_limit.hpp"

namespace {
constexpr unsigned int kChecksumThatStores = 0x9E3779B9u;

std::vector<unsigned char> with_word(std::size_t bytes, std::size_t at, unsigned int word) {
  std::vector<unsigned char> data(bytes, 0);
  std::memcpy(data.data() + at, &word, sizeof word);
  return data;
}

bool stores(const std::vector<unsigned char>& data, unsigned int grid, unsigned int block) {
  const pmpp::DeviceBuffer<unsigned char> d(data);
  pmpp::DeviceBuffer<unsigned int> sink(std::vector<unsigned int>{0});
  pmpp::launch_read_once(d.data(), d.bytes(), sink.data(), grid, block);
  return sink.to_host()[0] == kChecksumThatStores;
}
}  // namespace

TEST_CASE("the read-once kernel reads every 16 bytes, whatever the size and launch shape", "[gpu][read_limit]") {
  PMPP_REQUIRE_GPU();
  for (const std::size_t bytes : {std::size_t{16}, std::size_t{4099}, std::size_t{1000003}}) {
    const std::size_t whole = bytes / 16 * 16;  // bytes in whole 16-byte loads
    for (const unsigned int grid : {1u, 3u, 264u}) {
      for (const unsigned int block : {32u, 256u}) {
        CAPTURE(bytes, grid, block);
        CHECK_FALSE(stores(std::vector<unsigned char>(bytes, 0), grid, block));  // nothing planted
        // The checksum in the first word, in the last word of the whole loads, and in between.
        for (const std::size_t at : {std::size_t{0}, whole / 2 / 16 * 16 + 8, whole - 4})
          CHECK(stores(with_word(bytes, at, kChecksumThatStores), grid, block));
      }
    }
  }
}

TEST_CASE("the read-once kernel reads the last bytes past the whole 16-byte loads", "[gpu][read_limit]") {
  PMPP_REQUIRE_GPU();
  for (const std::size_t bytes : {std::size_t{17}, std::size_t{4099}, std::size_t{1000003}}) {
    CAPTURE(bytes);
    const std::size_t last = bytes - 1, whole = bytes / 16 * 16;
    const unsigned int last_adds = 0x5Cu << (8 * ((last - whole) % 4));  // what the last byte adds
    // The first thread reads the first 16 bytes and the last bytes: only both together store.
    std::vector<unsigned char> data = with_word(bytes, 0, kChecksumThatStores ^ last_adds);
    data[last] = 0x5C;
    CHECK(stores(data, 264, 256));
    data[last] = 0;
    CHECK_FALSE(stores(data, 264, 256));
  }
}

TEST_CASE("the read-once kernel refuses misaligned data and an empty launch", "[gpu][read_limit]") {
  PMPP_REQUIRE_GPU();
  const pmpp::DeviceBuffer<unsigned char> d(64);
  pmpp::DeviceBuffer<unsigned int> sink(1);
  CHECK_THROWS_AS(pmpp::launch_read_once(d.data() + 4, 32, sink.data(), 1, 256), std::invalid_argument);
  CHECK_THROWS_AS(pmpp::launch_read_once(d.data(), 64, sink.data(), 0, 256), std::invalid_argument);
}

TEST_CASE("the measured read limit keeps the fastest of its launch shapes", "[gpu][read_limit]") {
  PMPP_REQUIRE_GPU();
  const pmpp::DeviceBuffer<float> d(std::vector<float>(1 << 20, 1.0f));
  pmpp::KernelTimer timer(pmpp::TimingOptions{1, 3, true});
  const pmpp::ReadLimit limit = pmpp::time_read_once(d.data(), d.bytes(), timer);
  CHECK(limit.grid > 0);
  CHECK((limit.block == 256 || limit.block == 1024));
  CHECK(limit.timing.samples == 3);
  CHECK(limit.timing.median_ms > 0);
}
