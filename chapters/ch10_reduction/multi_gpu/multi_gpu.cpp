// ch10_multi_gpu: chapter 10 one level up, one process driving every GPU. The sum of n floats across
// GPUs (the chapter's last stage on each shard, then NCCL or peer reads for the partial sums) against
// one GPU, and the all-reduce of a vector, the copy-engine ring and the fused ring against NCCL, with
// the rings' cost model and the links measured in the same run. ch10_multi_gpu_mpi runs the same under
// mpirun, one process per GPU.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

#include "ch10_reduction/multi_gpu/session.hpp"
#include "pmpp/program.hpp"
#include "pmpp/report.hpp"
#include "pmpp/words.hpp"

using namespace pmpp;
using namespace pmpp::ch10::multi_gpu;

namespace {
// Without a GPU and without --gpus, the analysis plans for this many.
constexpr int kAssumedGpus = 4;
}  // namespace

int main(int argc, char** argv) {
  const char* program = "ch10_multi_gpu";
  return guarded_main(program, [&] {
    SessionOptions o;
    Cli cli(program,
            "Chapter 10 across GPUs, one process driving them all: the sum of --n floats (the chapter's last stage "
            "on each GPU's shard, then NCCL or peer reads for the partial sums) against one GPU, and the "
            "all-reduce of vectors from --min-mib to --max-mib, the copy-engine ring and the fused ring against "
            "NCCL, checked element by element against the CPU and timed, with the rings' traffic, the links "
            "measured in the same run, and the predicted time.");
    add_options(cli, o, true);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(o);

    const bool have_gpu = gpu_available();
    int count = 0;
    if (have_gpu) CUDA_CHECK(cudaGetDeviceCount(&count));
    // The analysis alone may describe GPUs this machine lacks (what would 8 GPUs send?).
    if (have_gpu && o.gpus > count && !o.analysis_only)
      throw UsageError("--gpus " + std::to_string(o.gpus) + ": this machine has " + count_of(count, "GPU"));
    const int gpus = o.gpus > 0 ? o.gpus : (have_gpu ? count : kAssumedGpus);
    std::string whose = o.gpus > 0        ? count_of(gpus, "GPU") + " from --gpus"
                        : have_gpu        ? "the " + count_of(gpus, "GPU") + " of this machine"
                                          : "no GPU here: " + count_of(gpus, "GPU") + " assumed; --gpus N plans for N";
    if (o.ranks_per_gpu > 1) whose += ", " + std::to_string(o.ranks_per_gpu) + " ranks on each";
    std::printf("%s: chapter 10 across GPUs, one process driving them\n\n", program);
    RunRecord record(program, command_line(argc, argv), o.json);
    record.set_problem(problem_in_words(o, count_of(gpus * o.ranks_per_gpu, "rank") + " (" + whose + ")"));
    print_analysis(o, gpus * o.ranks_per_gpu, whose, record);
    if (o.analysis_only) return record.finish(kExitPass);
    if (!gpu_or_explain(program)) return record.finish(kExitNoGpu);

    // Rank r on GPU r mod gpus: with several ranks per GPU, neighbours in the ring sit on different
    // GPUs wherever there are two.
    std::vector<int> devices;
    for (int r = 0; r < gpus * o.ranks_per_gpu; ++r) devices.push_back(r % gpus);
    const auto team = make_local_team(devices, o.capacity(), o.ring_options(), o.fused_options());
    return run_session(*team, o, record);
  });
}
