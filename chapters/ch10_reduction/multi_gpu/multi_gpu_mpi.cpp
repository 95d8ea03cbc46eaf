// ch10_multi_gpu_mpi: the same runs as ch10_multi_gpu, one process per GPU, started by mpirun (Open MPI):
//   mpirun -np 2 ch10_multi_gpu_mpi
// Rank r takes GPU (r's number on this machine) mod (GPUs here). Every rank must be on one machine: the
// hand-written ring maps its neighbours' memory with CUDA IPC. Started without mpirun, it runs as one rank.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "ch10_reduction/multi_gpu/mpi_team.hpp"
#include "ch10_reduction/multi_gpu/session.hpp"
#include "pmpp/program.hpp"
#include "pmpp/report.hpp"
#include "pmpp/words.hpp"

using namespace pmpp;
using namespace pmpp::ch10::multi_gpu;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* program = "ch10_multi_gpu_mpi";
  const std::string name = rank == 0 ? program : std::string(program) + " (rank " + std::to_string(rank) + ")";
  const int status = guarded_main(name.c_str(), [&] {
    SessionOptions o;
    Cli cli(program,
            "Chapter 10 across GPUs, one process per GPU under mpirun (mpirun -np 2 ch10_multi_gpu_mpi): the same "
            "sum across GPUs and all-reduce, both rings against NCCL, as ch10_multi_gpu, with MPI carrying what "
            "the processes tell each other and CUDA IPC mapping each other's GPU memory.");
    add_options(cli, o, false);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate(o);
    // Only rank 0 prints, and writes the record.
    RunRecord record(program, command_line(argc, argv), rank == 0 ? o.json : std::string());
    record.set_problem(problem_in_words(o, count_of(size, "rank") + " (one per process)"));
    if (rank == 0) {
      std::printf("%s: chapter 10 across GPUs, %s under MPI\n\n", program,
                  count_of(size, "process", "processes").c_str());
      print_analysis(o, size, "one per process", record);
    }
    if (o.analysis_only) return record.finish(kExitPass);
    // Every process must see a GPU, or none runs: the ring and NCCL need all of them.
    int mine = gpu_available() ? 1 : 0, everyone = 0;
    MPI_Allreduce(&mine, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!everyone) {
      if (rank == 0) explain_no_gpu(program, "not every rank has one");
      return record.finish(kExitNoGpu);
    }
    const auto team = make_mpi_team(o.capacity(), o.ring_options(), o.fused_options());
    return run_session(*team, o, record);
  });
  // A CUDA or NCCL error in one process leaves the others waiting for it: end them all.
  if (status == kExitRuntimeError) MPI_Abort(MPI_COMM_WORLD, status);
  MPI_Finalize();
  return status;
}
