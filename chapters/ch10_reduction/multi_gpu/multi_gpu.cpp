// ch10_multi_gpu: chapter 10 one level up, one process driving every GPU. The sum of n floats across
// GPUs (stage 06 on each shard, NCCL for the partial sums) against one GPU's stage 06, and the
// all-reduce of a vector, the hand-written ring against NCCL, with the ring's cost model and the
// links measured in the same run. ch10_multi_gpu_mpi runs the same under mpirun, one process per GPU.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

#include "ch10_reduction/multi_gpu/session.hpp"
#include "pmpp/program.hpp"
#include "pmpp/report.hpp"

using namespace pmpp;
using namespace pmpp::ch10::multi_gpu;

int main(int argc, char** argv) {
  const char* program = "ch10_multi_gpu";
  return guarded_main(program, [&] {
    SessionOptions o;
    Cli cli(program,
            "Chapter 10 across GPUs, one process driving them all: the sum of --n floats (stage 06 on each GPU's "
            "shard, NCCL for the partial sums) against one GPU, and the all-reduce of vectors from --min-mib to "
            "--max-mib, the hand-written ring against NCCL, checked element by element against the CPU and "
            "timed, with the ring's traffic, the links measured in the same run, and the predicted time.");
    add_options(cli, o, true);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(o);

    std::string why;
    const bool have_gpu = gpu_available(&why);
    int count = 0;
    if (have_gpu) CUDA_CHECK(cudaGetDeviceCount(&count));
    // The analysis alone may describe GPUs this machine lacks (what would 8 GPUs send?).
    if (have_gpu && o.gpus > count && !o.analysis_only)
      throw UsageError("--gpus " + std::to_string(o.gpus) + ": this machine has " + std::to_string(count) + " GPU(s)");
    const bool known = have_gpu || o.gpus > 0;
    const int gpus = o.gpus > 0 ? o.gpus : (have_gpu ? count : 4);
    std::printf("%s: chapter 10 across GPUs, one process driving them\n\n", program);
    print_analysis(o, gpus * o.ranks_per_gpu, !known);
    if (o.analysis_only) return int{kExitPass};
    if (!gpu_or_explain(program)) return int{kExitNoGpu};

    // Rank r on GPU r mod gpus: with several ranks per GPU, neighbours in the ring sit on different
    // GPUs wherever there are two.
    std::vector<int> devices;
    for (int r = 0; r < gpus * o.ranks_per_gpu; ++r) devices.push_back(r % gpus);
    const auto team = make_local_team(devices, o.capacity(), o.ring_options());
    return run_session(*team, o, program, command_line(argc, argv));
  });
}
