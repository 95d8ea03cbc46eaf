// The results table's last row: the least time any one-launch reduction can take on this device.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include "ch10_reduction/runner.hpp"

using Catch::Approx;
using namespace pmpp;
using namespace pmpp::ch10;

TEST_CASE("the limit row is an empty launch plus one read of the input at peak DRAM", "[analysis]") {
  DeviceInfo device;
  device.peak_dram_gbps = 3000;
  const std::size_t n = 3'000'000;  // 12 MB: 0.004 ms at 3000 GB/s
  Measurement cub{&cub_baseline(), "", {}, {}, std::nullopt};
  cub.check.ok = true;
  cub.timing.median_ms = 0.010;
  Timing empty_launch;
  empty_launch.median_ms = 0.003;

  const Table with_limit = results_table({cub}, n, device, &cub, &empty_launch);
  REQUIRE(with_limit.rows().size() == 2);
  const std::vector<Cell>& limit = with_limit.rows().back();
  CHECK(limit[0].text == "limit: one launch");
  REQUIRE(limit[4].number);
  CHECK(*limit[4].number == Approx(0.007));              // median ms
  CHECK(*limit[5].number == Approx(12e6 / 0.007e-3 / 1e9));  // GB/s
  CHECK(*limit[6].number == Approx(100.0 * 4.0 / 7.0));  // % of peak DRAM
  CHECK(*limit[7].number == Approx(10.0 / 7.0));          // x CUB: the most a single launch could reach

  CHECK(results_table({cub}, n, device, &cub, nullptr).rows().size() == 1);  // no empty launch timed, no row
}

TEST_CASE("the measured read limit is a row of its own, before the data sheet's", "[analysis]") {
  DeviceInfo device;
  device.peak_dram_gbps = 3000;
  const std::size_t n = 3'000'000;  // 12 MB
  Measurement cub{&cub_baseline(), "", {}, {}, std::nullopt};
  cub.check.ok = true;
  cub.timing.median_ms = 0.010;
  Timing empty_launch;
  empty_launch.median_ms = 0.003;
  ReadLimit read;
  read.timing.median_ms = 0.008;
  read.grid = 528;
  read.block = 256;

  const Table t = results_table({cub}, n, device, &cub, &empty_launch, &read);
  REQUIRE(t.rows().size() == 3);
  const std::vector<Cell>& row = t.rows()[1];
  CHECK(row[0].text == "limit: read once");
  CHECK(row[2].text == "528 x 256");
  REQUIRE(row[4].number);
  CHECK(*row[4].number == Approx(0.008));
  CHECK(*row[6].number == Approx(100.0 * 12e6 / 0.008e-3 / 1e9 / 3000));  // % of peak DRAM
  CHECK(*row[7].number == Approx(10.0 / 8.0));                              // x CUB
  CHECK(t.rows().back()[0].text == "limit: one launch");
}
