// The chapter's programs as a reader meets them, without a GPU: their options, and tables made for a
// terminal of 100 columns at any problem size; and the profile table the profiler reads.
#include <catch2/catch_test_macros.hpp>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "ch05_matmul/runner.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/device_info.hpp"

using namespace pmpp::ch05;

namespace {
std::vector<const Stage*> all_stages() {
  std::vector<const Stage*> list;
  for (const Stage& s : stages()) list.push_back(&s);
  return list;
}

// Every line of @p table as printed fits 100 columns, and the table prints whole (one header), not in
// the parts Table::print falls back to.
void check_fits(const pmpp::Table& table) {
  std::ostringstream out;
  table.print(out);
  INFO(out.str());
  std::istringstream lines(out.str());
  int headers = 0;
  for (std::string line; std::getline(lines, line);) {
    CHECK(line.size() <= 100);
    headers += line.rfind("stage ", 0) == 0;
  }
  CHECK(headers == 1);
}

Options sized(int m, int n, int k, int tile = 0) {
  Options o;
  o.m = m, o.n = n, o.k = k, o.tile = tile;
  return o;
}

const std::vector<Options> kSizes = {sized(4096, 4096, 4096), sized(4093, 4099, 4097), sized(1, 1, 1),
                                     sized(67, 45, 33), sized(1048560, 1048560, 4096, 32)};

// An H100's figures, as query_device would report them.
pmpp::DeviceInfo h100() {
  pmpp::DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.major = 9, d.minor = 0, d.sm_count = 132;
  d.peak_dram_gbps = 3352.3;
  d.sm_clock_khz = 1980000;
  d.peak_fp32_gflops = 2.0 * 132 * 128 * 1.98;
  d.peak_tf32_gflops = 132 * 2048 * 1.98;
  return d;
}
}  // namespace

TEST_CASE("a stage program takes --tile only where one of its stages has a TILE_WIDTH choice", "[programs]") {
  for (const Stage& s : stages()) {
    INFO(s.id);
    Options o;
    pmpp::Cli cli("ch05_" + std::string(s.id), "summary");
    add_options(cli, o, {&s});
    CHECK((cli.help().find("--tile") != std::string::npos) == !s.tiles.empty());
    CHECK(takes_tile({&s}) == !s.tiles.empty());
  }
  Options o;
  pmpp::Cli side_by_side("ch05_matmul", "summary");
  add_options(side_by_side, o, all_stages());
  CHECK(side_by_side.help().find("--tile N                    TILE_WIDTH of stage 02_tiled: 16 or 32") !=
        std::string::npos);
}

TEST_CASE("the tile option takes only the TILE_WIDTHs the stages are compiled for", "[programs]") {
  const std::vector<const Stage*> tiled{find_stage("02_tiled")};
  CHECK_NOTHROW(validate(sized(8, 8, 8, 32), tiled));
  CHECK_NOTHROW(validate(sized(8, 8, 8, 0), tiled));
  CHECK_THROWS_AS(validate(sized(8, 8, 8, 24), tiled), pmpp::UsageError);
  CHECK_THROWS_AS(validate(sized(1000000, 8, 100000), tiled), pmpp::UsageError);
}

TEST_CASE("the analysis tables fit 100 columns at every size", "[programs]") {
  for (const Options& o : kSizes) {
    INFO(problem_in_words(o));
    check_fits(intensity_table(all_stages(), o));
    check_fits(coalescing_table(all_stages(), o));
  }
}

TEST_CASE("the launch and results tables fit 100 columns, failures and the limit row included", "[programs]") {
  const std::vector<const Stage*> list = all_stages();
  for (const Options& o : kSizes) {
    INFO(problem_in_words(o));
    std::vector<Contender> who = contenders(list, o.tile, nullptr);
    who.push_back({"cuBLAS SGEMM (fp32, no TF32)", nullptr, 0, {}, "FP32", &FP32_ROUNDING, {}});
    who.push_back({"cuBLAS SGEMM (TF32 allowed)", nullptr, 0, {}, "TF32", &TF32_ROUNDING, {}});
    std::vector<Measurement> runs;
    // Times as an H100 gives them (GFLOP/s of each stage in turn, the cuBLAS rows last), at least a
    // launch's; one stage failed, one skipped.
    const double gflops[] = {2200, 3300, 3600, 40000, 45000, 48000, 300000, 100000, 95000, 320000, 52000, 350000};
    std::size_t next = 0;
    for (const Contender& c : who) {
      const bool passed = c.name != "03_register_tiled";
      const double ms = std::max(0.002, flops(o.m, o.n, o.k) / (gflops[std::min<std::size_t>(next++, 11)] * 1e6));
      LaunchConfig config;
      if (c.stage) config = {{65535, 65535, 1}, {1024, 1, 1}, 98304};
      const std::string skipped = c.name == "04_warp_tiled" ? "needs compute capability 8.0; this GPU has 7.5" : "";
      runs.push_back({&c, config, {ms, ms, ms, 20}, passed && skipped.empty(), 1.234e-4 * next, skipped});
    }
    check_fits(launch_table(runs));
    const pmpp::Table results = results_table(runs, o, h100());
    check_fits(results);
    std::vector<std::string> first_cells;
    for (const auto& row : results.rows()) first_cells.push_back(row.front().text);
    CHECK(first_cells[first_cells.size() - 3] == "limit: FP32 peak");
    CHECK(first_cells[first_cells.size() - 2] == "limit: TF32 peak");
    CHECK(first_cells.back() == "limit: 3xTF32 peak");
    if (o.m == 4096 && o.n == 4096 && o.k == 4096) {  // every row timed above a launch's floor
      CHECK(results.rows()[4][2].text == "SKIP");  // 04_warp_tiled, after 02 at both TILE_WIDTHs
      CHECK(results.rows()[3][2].text == "FAIL");
      // TF32 rows against cuBLAS with TF32 allowed (350000 GFLOP/s): 300000 / 350000.
      CHECK(results.rows()[6][5].text == "85.7");
      CHECK(results.rows()[7][5].text == pmpp::fixed(100.0 * 100000 / 52000, 1));  // 3xTF32 against FP32
      CHECK(results.rows()[7][6].text == "9.87e-04");  // its max error (8 x 1.234e-4)
      CHECK(results.rows()[9][5].text == "91.4");         // stage 09, TF32: 320000 / 350000
    }
  }
}

TEST_CASE("the profile table has the columns the profiler reads, a row per stage and TILE_WIDTH", "[programs]") {
  const Options o = sized(300, 200, 100);
  const pmpp::Table t = profile_table(all_stages(), o);
  CHECK(t.columns() == std::vector<std::string>{"stage", "tile", "flops", "compulsory read B", "compulsory write B",
                                                "text model OP/B", "DRAM-read OP/B", "sectors per request",
                                                "threads per warp", "bank conflicts", "shared access", "note"});
  REQUIRE(t.rows().size() == stages().size() + 1);  // 02_tiled twice: TILE_WIDTH 16 and 32
  for (const auto& row : t.rows()) {
    INFO(row[0].text << " tile " << row[1].text);
    const Stage& s = *find_stage(row[0].text);
    CHECK(*row[2].number == 2.0 * 300 * 200 * 100);
    CHECK(*row[3].number == 4.0 * (300 * 100 + 100 * 200));
    CHECK(*row[4].number == 4.0 * 300 * 200);
    CHECK(*row[5].number == s.text_op_per_byte(row[1].text == "-" ? 0 : std::stoi(row[1].text)));
    CHECK(*row[6].number == *row[2].number / *row[3].number);
    CHECK(*row[8].number == 32);
    CHECK(row[10].text == s.shared_access);
    CHECK(row[11].text == s.model_note);
  }
  CHECK(t.rows()[0][7].text == "2.0");  // naive: A broadcast and B load, 2 sectors each
  CHECK(t.rows()[1][1].text == "16");
  CHECK(t.rows()[2][1].text == "32");
  CHECK(t.rows()[5][7].text == "-");  // stage 05 copies with cp.async: no global loads to count
  CHECK(t.rows().back()[7].text == "-");  // so do the tensor-core stages
  // N = 45: stage 05 copies one unaligned float at a time, which the counters report as conflicts.
  CHECK(profile_table({find_stage("05_async_copy")}, sized(67, 45, 33)).rows()[0][9].text == "-");
  CHECK(profile_table({find_stage("02_tiled")}, sized(8, 8, 8, 32)).rows().size() == 1);  // --tile 32
}
