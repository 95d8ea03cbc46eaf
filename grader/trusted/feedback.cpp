// Feedback cases (see feedback.hpp).
#include "feedback.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "json_text.hpp"
#include "pmpp/device_info.hpp"
#include "timing.hpp"
#include "workers.hpp"

namespace pmpp_grader {
namespace {

/// Time the profiler gets, once the worker's requests end, to write its report (it writes it as the
/// worker exits).
constexpr double kProfilerGraceSeconds = 20;
/// Of a profiled worker's output, at most this much of the profiler's lines is kept per side: the
/// facts of a case are read up to 64 KiB.
constexpr std::size_t kReportLimit = 24 * 1024;

struct Profile {
  bool ran = false;
  std::string why;     ///< why it did not run, if it did not
  std::string report;  ///< the profiler's lines: CSV rows (quoted) and its own messages ("==")
};

std::string profiler_lines(const std::string& output) {
  std::istringstream in(output);
  std::string line, kept;
  while (std::getline(in, line)) {
    // What the worker printed is shown as "  | " lines elsewhere; here only what a profiler writes.
    if ((line.rfind("\"", 0) == 0 || line.rfind("==", 0) == 0) && kept.size() + line.size() < kReportLimit)
      kept += line + "\n";
  }
  return kept;
}

Profile profile(Side side, const FeedbackTrial& trial) {
  Profile p;
  if (settings().profiler.empty()) {
    p.why = "no profiler was given";
    return p;
  }
  try {
    ProfiledWorker worker(side, settings().timeout_s);
    if (!worker.failed().empty()) {
      p.why = "the profiled worker did not start: " + worker.failed();
      p.report = profiler_lines(worker.finish(0));
      return p;
    }
    trial.prepare();
    trial.run();
    p.report = profiler_lines(worker.finish(kProfilerGraceSeconds));
    p.ran = true;
  } catch (const std::exception& e) {  // ProfiledRunFailed, or the side's own exception
    p.why = std::string("the profiled run failed: ") + e.what();
  }
  return p;
}

std::string profile_json(const Profile& p) {
  return "{\"ran\": " + json_bool(p.ran) + ", \"why\": " + json_string(p.why) +
         ", \"report\": " + json_string(p.report) + "}";
}

std::string floor_json(const Floor& f) {
  return "{\"kind\": " + json_string(f.kind) + ", \"ms\": " + json_number(f.ms, f.ms > 0) +
         ", \"bytes\": " + json_number(f.bytes) + ", \"flops\": " + json_number(f.flops) + "}";
}

}  // namespace

void give_feedback(const FeedbackTrial& trial) {
  if (!reference_available())
    SKIP("feedback compares with the solution's worker, and none was given (--reference-worker)");
  const pmpp::DeviceInfo device = pmpp::query_device();
  const Floor floor = floor_of(trial.work, device.peak_dram_gbps, device.peak_fp32_gflops,
                               static_cast<double>(device.l2_bytes));
  L2Evictor l2;

  const TimedRuns yours = time_runs(Side::code_under_test, trial.prepare, trial.run, trial.check, trial.warmup,
                                    trial.repetitions, l2);
  const Profile your_profile = profile(Side::code_under_test, trial);
  retire_code_under_test();  // nothing of it may run while the solution is timed
  const TimedRuns solution = time_runs(Side::reference, trial.prepare, trial.run, trial.check, trial.warmup,
                                       trial.repetitions, l2);
  const Profile solution_profile = profile(Side::reference, trial);

  // The work's own times: each side's median call less its fixed cost (timing.hpp).
  const double your_ms = yours.net_ms(), solution_ms = solution.net_ms();
  const Physics physics = check_physics(your_ms, floor);
  std::string text = "{";
  for (const TextPrediction& t : trial.text)
    text += (text.size() > 1 ? ", " : "") + json_string(t.first) + ": " + json_number(t.second);
  text += "}";
  note_feedback("{\"exercise\": " + json_string(trial.exercise) + ", \"launch\": " + json_string(trial.launch) +
                ", \"gpu\": " + json_string(device.name) + ", \"time_ms\": " + json_number(your_ms) +
                ", \"call_ms\": " + json_number(yours.median_ms()) + ", \"fixed_ms\": " + json_number(yours.fixed_ms()) +
                ", \"wrong_runs\": " + std::to_string(yours.wrong) + ", \"solution_ms\": " +
                json_number(solution_ms, solution.wrong == 0) + ", \"solution_call_ms\": " +
                json_number(solution.median_ms(), solution.wrong == 0) + ", \"floor\": " + floor_json(floor) +
                ", \"physics\": {\"flagged\": " + json_bool(physics.flagged) + ", \"line\": " +
                json_string(physics.line) + "}, \"text\": " + text + ", \"profiles\": {\"yours\": " +
                profile_json(your_profile) + ", \"solution\": " + profile_json(solution_profile) + "}}");

  char line[400];
  std::snprintf(line, sizeof line,
                "feedback (%s): yours %.4f ms, the solution's %.4f ms, floor %.4f ms (%s); the calls took %.4f and "
                "%.4f ms, of which %.4f and %.4f ms is a call's fixed cost",
                trial.launch.c_str(), your_ms, solution_ms, floor.ms, floor.kind, yours.median_ms(),
                solution.median_ms(), yours.fixed_ms(), solution.fixed_ms());
  std::cout << line << "\nphysics: " << physics.line << std::endl;
  INFO(line);
  INFO("physics: " << physics.line);
  INFO(yours.wrong << " of the " << trial.repetitions << " timed runs of the code under test gave a wrong result");
  CHECK(yours.wrong == 0);
  CHECK_FALSE(physics.flagged);
  REQUIRE(solution.wrong == 0);  // else the trial itself is wrong
}

}  // namespace pmpp_grader
