// Timing and agreeing across a team: the same code in one process and across processes, where every
// value a table shows must be the same in every process and the slowest rank sets the time.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "ch10_reduction/multi_gpu/session_parts.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu::detail {

void synchronize(Team& team) {
  Ring& ring = team.ring();
  for (int r : ring.local_ranks()) {
    CUDA_CHECK(cudaSetDevice(ring.device(r)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

double largest(Team& team, double local_value) {
  const std::vector<double> all = team.collect(std::vector<double>(team.ring().local_ranks().size(), local_value));
  return *std::max_element(all.begin(), all.end());
}

bool everywhere(Team& team, bool local_ok) { return largest(team, local_ok ? 0.0 : 1.0) == 0.0; }

//! [time_ms]
// Average over `repetitions` runs enqueued back to back, after warm-up, timed on the host from the
// moment every process is ready until every GPU is done: the way the NCCL performance tests time.
// Work on several GPUs has no single stream to put events on, and back to back the launch costs
// overlap the previous run, as they do in an application.
double time_ms(Team& team, int repetitions, const std::function<void()>& enqueue) {
  for (int i = 0; i < kWarmup; ++i) enqueue();
  synchronize(team);
  team.barrier();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repetitions; ++i) enqueue();
  synchronize(team);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return largest(team, ms / repetitions);
}
//! [time_ms]

void say(Team& team, const std::string& text) {
  if (team.prints()) std::printf("%s\n", text.c_str());
}

void show(Team& team, const std::string& title, const Table& table) {
  if (!team.prints()) return;
  if (!title.empty()) std::printf("%s\n", title.c_str());
  table.print(std::cout);
  std::printf("\n");
}

std::string format_bytes(std::size_t bytes) {
  char text[32];
  if (bytes >= (std::size_t{1} << 30) && bytes % (std::size_t{1} << 30) == 0)
    std::snprintf(text, sizeof text, "%zu GiB", bytes >> 30);
  else if (bytes >= (std::size_t{1} << 20))
    std::snprintf(text, sizeof text, "%.4g MiB", static_cast<double>(bytes) / 1048576.0);
  else
    std::snprintf(text, sizeof text, "%.4g KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

}  // namespace pmpp::ch10::multi_gpu::detail
