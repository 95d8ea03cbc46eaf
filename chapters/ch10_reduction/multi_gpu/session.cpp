// The body of the multi-GPU programs (see session.hpp): written once against Team, so one process
// driving every GPU and one process per GPU under mpirun run the same checks, timings and tables. This
// file says who takes part and keeps the record; the sum and the all-reduce have files of their own.
#include "ch10_reduction/multi_gpu/session.hpp"

#include <cstdio>
#include <set>

#include "ch10_reduction/multi_gpu/session_parts.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/report.hpp"
#include "pmpp/words.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
std::set<int> devices_of(Team& team) {
  std::set<int> distinct;
  for (int r = 0; r < team.ranks(); ++r) distinct.insert(team.device_of(r));
  return distinct;
}

// "2 x NVIDIA H100 80GB HBM3", or "NVIDIA H100 80GB HBM3 (3 ranks on 1 GPU)": the device field of the record.
std::string devices_text(Team& team) {
  const std::set<int> distinct = devices_of(team);
  std::set<std::string> names;
  for (int d : distinct) names.insert(query_device(d).name);
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : " + ") + name;
  if (static_cast<int>(distinct.size()) < team.ranks())
    return text + " (" + count_of(team.ranks(), "rank") + " on " +
           count_of(static_cast<long long>(distinct.size()), "GPU") + ")";
  return std::to_string(distinct.size()) + " x " + text;
}

// Who takes part: each rank's GPU, each GPU once, and what NCCL is.
void introduce(Team& team) {
  std::printf("ranks: %d, %s\n", team.ranks(), team.description().c_str());
  for (int r = 0; r < team.ranks(); ++r)
    std::printf("  rank %d: GPU %d, PCI %s\n", r, team.device_of(r), pci_bus_id(team.device_of(r)).c_str());
  for (int d : devices_of(team))
    std::printf("%s", wrap_text(query_device(d).summary(), "GPU " + std::to_string(d) + ": ", "  ").c_str());
  std::printf("%s\n", wrap_text("NCCL: " + team.nccl_status(), "", "  ").c_str());
}
}  // namespace

int run_session(Team& team, const SessionOptions& o, RunRecord& record) {
  if (team.prints()) introduce(team);
  record.set_device(devices_text(team));
  // How the ranks were started is part of the problem, so that the two launch modes' records of the
  // same sizes have captions of their own.
  record.set_problem(problem_in_words(o, count_of(team.ranks(), "rank") + ": " + team.description()));
  bool ok = true;
  if (o.runs_sum()) ok = detail::run_sum(team, o, record) && ok;
  if (o.runs_all_reduce()) ok = detail::run_all_reduce(team, o, record) && ok;
  detail::say(team, ok ? "every check passed" : "FAILED: a result differs from the CPU reference (see above)");
  return record.finish(ok ? 0 : 1);
}

}  // namespace pmpp::ch10::multi_gpu
