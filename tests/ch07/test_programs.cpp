// What the chapter-7 programs offer and print, without a GPU: the options each program takes, the
// profiler's predictions, and tables that fit a terminal.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "ch07_convolution/runner.hpp"

using Catch::Approx;
using namespace pmpp::ch07;

namespace {
std::vector<const Stage*> every_stage() {
  std::vector<const Stage*> all;
  for (const Stage& s : stages()) all.push_back(&s);
  return all;
}

std::string help_of(const std::vector<const Stage*>& list) {
  Options options;
  pmpp::Cli cli("program", "summary");
  add_options(cli, options, list);
  return cli.help();
}

std::size_t widest_line(const pmpp::Table& table) {
  std::ostringstream out;
  table.print(out);
  std::istringstream lines(out.str());
  std::size_t widest = 0;
  for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
  return widest;
}

/// An H100's figures, as query_device() reports them, for tables that need a device.
pmpp::DeviceInfo h100() {
  pmpp::DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.sm_count = 132;
  d.l2_bytes = 50u << 20;
  d.peak_dram_gbps = 3352;
  d.peak_fp32_gflops = 66908;
  return d;
}
}  // namespace

TEST_CASE("each program offers the options it uses", "[programs]") {
  const std::string all = help_of(every_stage());
  CHECK(all.find("--tile") != std::string::npos);
  CHECK(all.find("--sweep") != std::string::npos);
  for (const Stage& s : stages()) {
    INFO(s.id);
    const std::string one = help_of({&s});
    CHECK((one.find("--tile") != std::string::npos) == !s.tiles.empty());
    CHECK(one.find("--sweep") == std::string::npos);  // the sweep belongs to the side-by-side program
    CHECK(one.find("--radius") != std::string::npos);
  }
}

TEST_CASE("a stage program runs the first stage too, to compare; the first stage runs alone", "[programs]") {
  const Stage& first = stages().front();
  CHECK(stages_to_run({&first}) == std::vector<const Stage*>{&first});
  for (std::size_t i = 1; i < stages().size(); ++i)
    CHECK(stages_to_run({&stages()[i]}) == std::vector<const Stage*>{&first, &stages()[i]});
  CHECK(stages_to_run(every_stage()) == every_stage());
}

TEST_CASE("a problem a listed stage cannot run is a usage error", "[programs]") {
  Options o;
  o.radius = 8;
  o.tile = 16;  // 16 - 2*8 = 0: stage 03 has no output tile
  CHECK_THROWS_AS(validate(o, every_stage()), pmpp::UsageError);
  for (const Stage& s : stages())
    if (s.cannot_run == nullptr) CHECK_NOTHROW(validate(o, {&s}));
}

TEST_CASE("the profile table: the profiler's columns, one row per stage, numbers as numbers", "[programs]") {
  Options o;  // 8192 x 8192, radius 2
  const pmpp::Table t = profile_table(every_stage(), o);
  const std::vector<std::string> wanted{"stage", "tile", "flops", "compulsory read B", "compulsory write B",
                                        "text model OP/B", "DRAM-read OP/B", "sectors per request",
                                        "threads per warp", "bank conflicts", "shared access", "note"};
  for (const std::string& c : wanted) {
    INFO(c);
    CHECK(std::find(t.columns().begin(), t.columns().end(), c) != t.columns().end());
  }
  REQUIRE(t.rows().size() == stages().size());
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(t.columns().begin(), t.columns().end(), name) - t.columns().begin());
  };
  for (std::size_t i = 0; i < stages().size(); ++i) {
    const auto& row = t.rows()[i];
    INFO(stages()[i].id);
    CHECK(row[column("stage")].text == stages()[i].id);
    CHECK(row[column("flops")].number == Approx(2.0 * 25 * 8192 * 8192));
    CHECK(row[column("compulsory read B")].number == Approx(4.0 * 8192 * 8192));
    CHECK(row[column("DRAM-read OP/B")].number == Approx(12.5));
    CHECK(row[column("text model OP/B")].number == Approx(stages()[i].text_op_per_byte(2, 0)));
    CHECK(row[column("tile")].text == (stages()[i].tiles.empty() ? "-" : std::to_string(stages()[i].tiles.front())));
    CHECK(!row[column("note")].text.empty());
  }
}

TEST_CASE("predicted sectors per request agree with what Nsight Compute counted", "[programs]") {
  // Global load sectors / requests over the whole kernel, counted by Nsight Compute
  // (l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / ..._requests_...) for each stage program run with
  // --width W --height 4096 --radius r --reps 1 (and --tile where given): r = 2 on an H100
  // (profile/recorded/), the others on an H200, and stage 05's at r = 1 and 2 again on an H100 when its
  // tiling for them changed. The counts depend on the code's addresses, not on the GPU. The prediction
  // replays a warp in the middle of the image; the border warps make up the rest.
  struct Counted {
    std::size_t stage;
    int width, radius, tile;
    double sectors_per_request;
  };
  const std::vector<Counted> counted{
      {0, 4096, 2, 0, 2.90},   {1, 4096, 2, 0, 4.79},   {2, 4096, 2, 0, 4.97},   {3, 4096, 2, 0, 1.31},
      {4, 4096, 2, 0, 17.27},  {0, 4096, 1, 0, 2.831},  {1, 4096, 1, 0, 4.661},  {2, 4096, 1, 0, 4.978},
      {3, 4096, 1, 0, 1.525},  {4, 4096, 1, 0, 17.23},  {0, 4096, 4, 0, 2.941},  {1, 4096, 4, 0, 4.882},
      {2, 4096, 4, 0, 4.982},  {3, 4096, 4, 0, 1.338},  {4, 4096, 4, 0, 18.21},  {0, 4096, 8, 0, 2.908},
      {1, 4096, 8, 0, 4.816},  {2, 4096, 8, 0, 3.992},  {3, 4096, 8, 0, 1.541},  {4, 4096, 8, 0, 15.93},
      {2, 4096, 3, 8, 7.988},  {2, 4096, 4, 16, 5.992}, {4, 4093, 2, 0, 4.971}};
  // The rows above name the first five stages by position; stage 06 has no recorded count yet.
  REQUIRE(stages().size() >= 5);
  for (const Counted& c : counted) {
    const Stage& s = stages()[c.stage];
    INFO(s.id << " width " << c.width << " radius " << c.radius << " tile " << c.tile);
    const CounterPrediction p =
        s.predict_counters({nullptr, nullptr, nullptr, c.width, 4096, c.radius, effective_tile(s, c.tile)});
    CHECK(p.sectors_per_request == Approx(c.sectors_per_request).epsilon(0.01));
  }
}

TEST_CASE("a warp of 32 consecutive floats touches 4 sectors when aligned, 5 when not", "[programs]") {
  std::vector<long long> aligned, shifted;
  for (int lane = 0; lane < 32; ++lane) aligned.push_back(4 * lane), shifted.push_back(4 * lane + 4);
  CHECK(sectors_touched(aligned, 4) == 4);
  CHECK(sectors_touched(shifted, 4) == 5);
  CHECK(sectors_touched(std::vector<long long>(32, 64), 4) == 1);  // a broadcast
  std::vector<long long> vectors;
  for (int lane = 0; lane < 32; ++lane) vectors.push_back(16 * lane);
  CHECK(sectors_touched(vectors, 16) == 16);
}

TEST_CASE("results fit 100 columns and limit rows show only what a limit has", "[programs]") {
  Options o;  // 8192 x 8192, radius 2
  std::vector<Measurement> runs;
  for (const Stage& s : stages()) {
    Measurement m;
    m.name = s.id, m.stage = &s, m.ran = true, m.passed = true, m.status = "PASS";
    m.config = LaunchConfig{{256, 256, 1}, {32, 32, 1}, 4096};
    m.timing.median_ms = 0.1825 * (1 + (&s - &stages().front()));
    runs.push_back(m);
  }
  Measurement library;
  library.name = "cuDNN", library.ran = true, library.passed = true, library.status = "PASS";
  library.timing.median_ms = 1.4049;
  runs.push_back(library);

  const pmpp::Table results = results_table(runs, o, h100());
  CHECK(widest_line(results) <= 100);
  CHECK(widest_line(launch_table(runs)) <= 100);
  const auto& columns = results.columns();
  int limits = 0;
  for (const auto& row : results.rows()) {
    if (row[0].text.rfind("limit", 0) != 0) continue;
    ++limits;
    INFO(row[0].text);
    // A limit's time, and the one rate it is the peak of.
    const std::string rate = row[0].text.find("DRAM") != std::string::npos ? "GB/s" : "GFLOP/s";
    for (std::size_t c = 1; c < columns.size(); ++c) {
      INFO(columns[c]);
      CHECK((columns[c] == "median ms" || columns[c] == rate) == (row[c].text != "-"));
    }
  }
  CHECK(limits == 2);

  // The measured copy: a limit row with its GB/s and its share of the DRAM floor, and a note saying what it is.
  pmpp::Timing copy;
  copy.median_ms = 0.2;  // 8192 x 8192 x 8 B in 0.2 ms: 2684 GB/s; the H100's DRAM floor is 0.1602 ms
  const pmpp::Table with_copy = results_table(runs, o, h100(), &copy);
  CHECK(widest_line(with_copy) <= 100);
  const std::vector<pmpp::Cell>* copy_row = nullptr;
  for (const auto& row : with_copy.rows())
    if (row[0].text == "limit: copy once") copy_row = &row;
  REQUIRE(copy_row != nullptr);
  for (std::size_t c = 1; c < columns.size(); ++c) {
    INFO(columns[c]);
    CHECK((columns[c] == "median ms" || columns[c] == "GB/s" || columns[c] == "% of floor") ==
          ((*copy_row)[c].text != "-"));
  }
  CHECK((*copy_row)[2].text == "0.2000");
  CHECK((*copy_row)[3].text == "2684");
  CHECK((*copy_row)[4].text == "80.1");
  std::ostringstream printed;
  with_copy.print(printed);
  CHECK(printed.str().find("limit: copy once = a cudaMemcpy") != std::string::npos);
  CHECK(results.rows().size() + 1 == with_copy.rows().size());
  CHECK(widest_line(intensity_table(every_stage(), o)) <= 100);
  CHECK(widest_line(fig_7_14_table()) <= 100);

  // The closing explanation: a heading, one line per stage (the library has none), a closing line.
  const std::vector<std::string> lines = explain_times(runs, o, h100());
  REQUIRE(lines.size() == stages().size() + 2);
  for (std::size_t i = 0; i < stages().size(); ++i) {
    INFO(lines[i + 1]);
    CHECK(lines[i + 1].rfind(std::string("- ") + stages()[i].id + ": ", 0) == 0);
    CHECK((lines[i + 1].find("x, ") != std::string::npos) == (i > 0));  // a speed-up, except for the first
  }
  pmpp::Table explained = results;
  for (const std::string& line : lines) explained.add_note(line);
  CHECK(widest_line(explained) <= 100);
}

TEST_CASE("a problem that fits in L2 is not explained as if it reached DRAM", "[programs]") {
  Options o;
  o.width = o.height = 1024;  // 8 MiB in and out, in a 50 MiB L2
  Measurement m;
  m.name = stages().front().id, m.stage = &stages().front(), m.ran = true, m.passed = true, m.status = "PASS";
  m.timing.median_ms = 0.01;
  const std::vector<std::string> lines = explain_times({m}, o, h100());
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].find("fits in the 50 MiB L2") != std::string::npos);
}

TEST_CASE("the sweep table fits 100 columns", "[programs]") {
  std::vector<SweepRow> rows;
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    Options o;
    o.radius = r;
    SweepRow row{r, floors(o, h100()), {}, {}};
    for (const Stage& s : stages())
      if (s.beyond_text) {
        Measurement m;
        m.name = s.id, m.stage = &s, m.ran = true, m.passed = true, m.status = "PASS";
        m.timing.median_ms = 0.2 * r;
        row.runs.push_back(m);
      }
    for (const char* library : {"cuDNN", "NPP"}) {
      Measurement m;
      m.name = library, m.ran = true, m.passed = true, m.status = "PASS";
      m.timing.median_ms = 1.5 * r;
      row.libraries.push_back(m);
    }
    rows.push_back(row);
  }
  pmpp::Timing copy;
  copy.median_ms = 0.2;
  const pmpp::Table table = sweep_table(rows, h100(), &copy);
  CHECK(widest_line(table) <= 100);
  std::ostringstream printed;
  table.print(printed);
  CHECK(printed.str().find("took 0.2000 ms") != std::string::npos);  // the copy, in a note
  CHECK(printed.str().find("vs NPP") != std::string::npos);  // each library's time and the best stage's speed-up
  CHECK(printed.str().find("7.50") != std::string::npos);     // r = 1: NPP 1.5 ms / the best stage's 0.2 ms
}
