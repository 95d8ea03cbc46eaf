// The shared body of the chapter-7 programs (see runner.hpp): options, the problem, measuring, the program.
#include "ch07_convolution/runner.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "ch07_convolution/library_baseline.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/program.hpp"
#include "pmpp/random.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch07 {

// ---- Options --------------------------------------------------------------------------------------

bool is_whole_chapter(const std::vector<const Stage*>& list) { return list.size() == stages().size(); }

void add_options(Cli& cli, Options& o, const std::vector<const Stage*>& list) {
  cli.option("--width", o.width, "image width in pixels", 1, 1 << 20)
      .option("--height", o.height, "image height in pixels", 1, 1 << 20)
      .option("--radius", o.radius, "filter radius r: the filter is (2r+1) x (2r+1)", 1, MAX_FILTER_RADIUS);
  for (const Stage* s : list) {
    if (s->tiles.empty()) continue;
    std::string tiles;
    for (std::size_t i = 0; i < s->tiles.size(); ++i)
      tiles += (i == 0 ? "" : i + 1 == s->tiles.size() ? " or " : ", ") + std::to_string(s->tiles[i]);
    cli.option("--tile", o.tile,
               std::string("input tile of ") + s->id + ": " + tiles + ", > 2r (0: " +
                   std::to_string(s->tiles.front()) + ")",
               0, 1024);
    break;  // one stage of the chapter has a tile choice; a second would need its own option
  }
  cli.option("--seed", o.seed, "seed of the random inputs", 0, INT64_MAX)
      .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
      .flag("--exact", o.exact, "small-integer inputs: the check demands bit-exact results")
      .flag("--analysis", o.analysis_only, "print the text's analysis only (needs no GPU)")
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
  if (is_whole_chapter(list))
    cli.flag("--sweep", o.sweep,
             "instead: radius 1.." + std::to_string(MAX_FILTER_RADIUS) +
                 " at this size, the stages beyond the text against the DRAM and FP32 floors and the libraries "
                 "(ignores --radius)");
}

void validate(const Options& o, const std::vector<const Stage*>& list) {
  // Three float images live on the host (input, reference, result) and two on the device.
  const double pixels = static_cast<double>(o.width) * o.height;
  if (pixels > 4294967296.0)
    throw UsageError("--width x --height is " + std::to_string(static_cast<long long>(pixels)) +
                     " pixels; at most 2^32 are supported");
  const Conv2dArgs problem{nullptr, nullptr, nullptr, o.width, o.height, o.radius, o.tile};
  for (const Stage* s : list)
    if (s->cannot_run != nullptr)
      if (const std::string why = s->cannot_run(problem); !why.empty())
        throw UsageError(std::string(s->id) + " cannot run this problem: " + why);
}

std::string problem_in_words(const Options& o) {
  const int d = filter_dim(o.radius);
  return std::to_string(o.width) + " x " + std::to_string(o.height) + " image, " + std::to_string(d) + " x " +
         std::to_string(d) + " filter" + (o.exact ? ", small integers (exact check)" : "");
}

std::vector<const Stage*> stages_to_run(const std::vector<const Stage*>& list) {
  std::vector<const Stage*> run;
  const Stage* first = &stages().front();
  if (list.size() == 1 && list.front() != first) run.push_back(first);  // the comparison every stage gets
  run.insert(run.end(), list.begin(), list.end());
  return run;
}

// ---- Problem --------------------------------------------------------------------------------------

struct Problem::Device {
  DeviceBuffer<float> in, filter, out;
};

Problem::Problem(const Options& o) : options_(o) {
  const std::size_t pixels = static_cast<std::size_t>(o.width) * o.height;
  const std::size_t taps = static_cast<std::size_t>(filter_dim(o.radius)) * filter_dim(o.radius);
  // Different seeds for image and filter, and a random (so asymmetric) filter: a symmetric one would
  // hide a kernel that transposes the filter or the image.
  if (o.exact) {
    in_ = random_small_ints(pixels, o.seed, -4, 4);
    filter_ = random_small_ints(taps, o.seed + 1, -3, 3);
    tolerance_ = Tolerance::exact();
  } else {
    in_ = random_floats(pixels, o.seed);
    filter_ = random_floats(taps, o.seed + 1);
    tolerance_ = {float_error_bound(filter_, 1.0f), 0};
  }
  reference_ = convolution_2D_reference(in_, filter_, o.width, o.height, o.radius);
  device_ = std::make_unique<Device>(Device{DeviceBuffer<float>(in_), DeviceBuffer<float>(filter_),
                                            DeviceBuffer<float>(pixels)});
}

Problem::~Problem() = default;

std::string Problem::describe() const {
  std::ostringstream s;
  const int d = filter_dim(options_.radius);
  s << options_.width << " x " << options_.height << " floats, " << d << "x" << d << " filter (radius "
    << options_.radius << "), " << (options_.exact ? "small integers (exact check)" : "random floats in [-1, 1)")
    << ", seed " << options_.seed << ", tolerance |error| <= " << tolerance_.abs;
  return s.str();
}

Conv2dArgs Problem::args() const {
  return {device_->in.data(), device_->filter.data(), device_->out.data(), options_.width, options_.height,
          options_.radius, options_.tile};
}

CheckResult Problem::check(const Stage& stage) {
  if (stage.upload_filter) stage.upload_filter(filter_.data(), options_.radius);
  return check([&](const Conv2dArgs& a) { stage.launch(a); });
}

CheckResult Problem::check(const Launch& launch) {
  device_->out.poison();
  launch(args());
  CUDA_CHECK(cudaDeviceSynchronize());
  return compare(device_->out.to_host(), reference_, tolerance_);
}

CheckResult Problem::check_round_trip(const Stage& stage) {
  std::vector<float> out(reference_.size(), NAN);
  stage.round_trip(in_.data(), filter_.data(), out.data(), options_.width, options_.height, options_.radius);
  return compare(out, reference_, tolerance_);
}

LaunchConfig Problem::time(const Stage& stage, KernelTimer& timer, Timing& timing) {
  if (stage.upload_filter) stage.upload_filter(filter_.data(), options_.radius);
  LaunchConfig config;
  timing = time([&](const Conv2dArgs& a) { config = stage.launch(a); }, timer);
  return config;
}

Timing Problem::time(const Launch& launch, KernelTimer& timer) {
  const Conv2dArgs a = args();
  return timer.time([&] { launch(a); });
}

Timing Problem::time_copy_once(KernelTimer& timer) {
  const std::size_t bytes = sizeof(float) * in_.size();
  return time([&](const Conv2dArgs& a) {
    CUDA_CHECK(cudaMemcpyAsync(a.out, a.in, bytes, cudaMemcpyDeviceToDevice, nullptr));
  }, timer);
}

// ---- Measuring ------------------------------------------------------------------------------------

namespace {
/// "01_basic               PASS: ...", wrapped under its text if the summary is long.
void print_check(const std::string& name, const std::string& summary) {
  char name_column[32];
  std::snprintf(name_column, sizeof name_column, "%-22s ", name.c_str());
  std::fputs(wrap_text(summary, name_column, std::string(23, ' ')).c_str(), stdout);
}
}  // namespace

Measurement measure(Problem& problem, const Stage& stage, KernelTimer& timer) {
  Measurement m;
  m.name = stage.id;
  m.stage = &stage;
  m.tile = effective_tile(stage, problem.options().tile);
  if (stage.skip_reason != nullptr)
    if (const std::string why = stage.skip_reason(problem.args()); !why.empty()) {  // not this problem or GPU
      m.status = "skipped";
      m.why = std::string(stage.id) + " skipped: " + why;
      print_check(stage.id, "skipped: " + why);
      return m;
    }
  m.ran = true;
  const CheckResult check = problem.check(stage);
  m.passed = check.ok();
  m.status = m.passed ? "PASS" : "FAIL";
  print_check(stage.id, check.summary());
  if (m.passed) m.config = problem.time(stage, timer, m.timing);  // no timing for a wrong result
  return m;
}

Measurement measure_library(Problem& problem, const LibraryBaseline& library, KernelTimer& timer) {
  Measurement m;
  m.name = library.name;
  m.status = "skipped";
  if (!library.available()) {
    m.why = library.description();
    print_check(m.name, m.why);
    return m;
  }
  const Options& o = problem.options();
  std::unique_ptr<LibraryConvolution> conv;
  CheckResult check;
  try {  // the first run also lets a library measure its algorithms on this problem
    conv = library.make(o.width, o.height, o.radius);
    check = problem.check([&](const Conv2dArgs& a) {
      conv->prepare(a.in, a.filter);
      conv->run(a.in, a.filter, a.out);
      conv->collect(a.out);
    });
  } catch (const std::runtime_error& e) {  // the library refused this problem: say so in its row
    m.why = std::string(library.name) + " could not run: " + e.what();
    print_check(m.name, m.why);
    return m;
  }
  m.ran = true;
  m.passed = check.ok();
  m.status = m.passed ? "PASS" : "FAIL";
  print_check(m.name, check.summary());
  print_check("", conv->details());
  // Timed like a stage: the call alone, on the input prepare() set up during the check.
  if (m.passed) m.timing = problem.time([&](const Conv2dArgs& a) { conv->run(a.in, a.filter, a.out); }, timer);
  return m;
}

Floors floors(const Options& o, const DeviceInfo& d) {
  Floors f;
  const double pixels = static_cast<double>(o.width) * o.height;
  f.dram_ms = d.ms_at_peak_dram(compulsory_bytes(o.width, o.height));
  f.fp32_tflops = d.peak_fp32_gflops / 1000.0;
  f.fma_ms = d.ms_at_peak_fp32(2.0 * pixels * filter_dim(o.radius) * filter_dim(o.radius));
  f.tf32_tflops = d.peak_tf32_gflops / 1000.0;
  return f;
}


// ---- The program ----------------------------------------------------------------------------------

namespace {

void print_device(const DeviceInfo& device) {
  std::fputs(wrap_text(device.summary(), "device:  ", std::string(9, ' ')).c_str(), stdout);
}

/// --sweep: every radius, the stages beyond the text and the libraries, one row per radius, recorded as a
/// run of its own.
int run_sweep(const std::string& program, const Options& options, int argc, char** argv) {
  RunRecord record(program, command_line(argc, argv), options.json);
  const std::string largest = std::to_string(filter_dim(MAX_FILTER_RADIUS));
  record.set_problem(std::to_string(options.width) + " x " + std::to_string(options.height) +
                     " image, filters 3 x 3 to " + largest + " x " + largest);
  std::printf("%s --sweep: the stages beyond the text and the libraries at every radius\n\n",
              program.c_str());
  if (!gpu_or_explain(program.c_str())) return record.finish(kExitNoGpu);
  const DeviceInfo device = query_device();
  record.set_device(device.name);
  print_device(device);
  std::printf("problem: %d x %d floats, radius 1..%d\n\n", options.width, options.height, MAX_FILTER_RADIUS);

  KernelTimer timer(TimingOptions{3, options.repetitions, true});
  std::vector<SweepRow> rows;
  bool all_passed = true;
  Timing copy_once;
  for (int r = 1; r <= MAX_FILTER_RADIUS; ++r) {
    Options at_r = options;
    at_r.radius = r;
    SweepRow row{r, floors(at_r, device), {}, {}};
    Problem problem(at_r);  // its own image, filter and reference for each radius
    if (r == 1) copy_once = problem.time_copy_once(timer);  // the same image size at every radius
    for (const Stage& stage : stages())
      if (stage.beyond_text && r <= stage.max_radius) row.runs.push_back(measure(problem, stage, timer));
    for (const LibraryBaseline& library : library_baselines())
      row.libraries.push_back(measure_library(problem, library, timer));
    for (const auto* list : {&row.runs, &row.libraries})
      for (const Measurement& m : *list) all_passed = all_passed && (m.passed || !m.ran);
    rows.push_back(std::move(row));
  }
  std::printf("\n");
  const Table table = sweep_table(rows, device, &copy_once);
  table.print(std::cout);
  record.add("sweep", "The stages beyond the text at every radius, against the DRAM and FP32 floors and the libraries",
             table);
  return record.finish(all_passed ? kExitPass : kExitCheckFailed);
}

}  // namespace

int run_program(const std::string& program, const std::string& summary, const std::vector<const Stage*>& list,
                int argc, char** argv) {
  return guarded_main(program.c_str(), [&] {
    Options options;
    Cli cli(program, summary);
    add_options(cli, options, list);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(options, list);
    if (options.sweep && !options.analysis_only) return run_sweep(program, options, argc, argv);
    RunRecord record(program, command_line(argc, argv), options.json);
    record.set_problem(problem_in_words(options));
    const std::vector<const Stage*> run = stages_to_run(list);

    std::printf("%s\n", program.c_str());
    for (const Stage* s : list) std::printf("  %-18s %s (%s)\n", s->id, s->title, s->figure);
    bool tile_choice = false;
    for (const Stage* s : list) tile_choice = tile_choice || !s->tiles.empty();
    if (tile_choice) {  // the argument of section 7.4 belongs with the stage that has the tile choice
      std::printf("\nThe text's Fig 7.14: arithmetic intensity of the tiled kernel against tile size\n");
      const Table fig = fig_7_14_table();
      fig.print(std::cout);
      record.add("fig_7_14", "The text's Fig 7.14: OP/B of the tiled kernel against the input tile", fig);
    }
    std::printf("\nThe text's model, radius %d:\n", options.radius);
    const Table intensity = intensity_table(list, options);
    intensity.print(std::cout);
    record.add("model", "The text's model for each stage", intensity);
    // What the profiler compares its counters with: recorded, not printed.
    record.add("profile", "Predicted counters for each stage the program runs", profile_table(run, options));
    if (options.analysis_only) return record.finish(kExitPass);
    std::printf("\n");
    if (!gpu_or_explain(program.c_str())) return record.finish(kExitNoGpu);

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    print_device(device);
    std::fflush(stdout);  // the CPU reference takes a while at the default size
    Problem problem(options);
    std::fputs(wrap_text(problem.describe(), "problem: ", std::string(9, ' ')).c_str(), stdout);
    std::printf("\n");

    bool all_passed = true;
    for (const Stage* s : run)
      if (s->round_trip != nullptr) {  // the stage that writes its host round trip out proves it too
        const CheckResult round_trip = problem.check_round_trip(*s);
        print_check(std::string(s->id) + " (round trip)", round_trip.summary());
        all_passed = all_passed && round_trip.ok();
      }
    KernelTimer timer(TimingOptions{3, options.repetitions, true});
    std::vector<Measurement> runs;
    for (const Stage* s : run)
      if (options.radius <= s->max_radius) runs.push_back(measure(problem, *s, timer));
    if (is_whole_chapter(list))
      for (const LibraryBaseline& library : library_baselines()) runs.push_back(measure_library(problem, library, timer));
    for (const Measurement& m : runs) all_passed = all_passed && (m.passed || !m.ran);
    const Timing copy_once = problem.time_copy_once(timer);

    std::printf("\n");
    const Table launches = launch_table(runs);
    launches.print(std::cout);
    std::printf("\n");
    Table results = results_table(runs, options, device, &copy_once);
    for (const std::string& line : explain_times(runs, options, device))
      results.add_note(line);  // printed with the table, and the record keeps them with the numbers
    results.print(std::cout);
    const std::string what = list.size() > 1 ? "Stages side by side with the libraries"
                             : run.size() > 1 ? std::string("Stage ") + list.front()->id + " next to " + run.front()->id
                                              : std::string("Stage ") + list.front()->id;
    record.add("launches", "How each stage was launched", launches);
    record.add("results", what, results);
    return record.finish(all_passed ? kExitPass : kExitCheckFailed);
  });
}

}  // namespace pmpp::ch07
