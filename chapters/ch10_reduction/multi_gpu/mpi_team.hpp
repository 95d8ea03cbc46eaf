/// @file mpi_team.hpp
/// @brief One rank per process, started by mpirun (Open MPI): the Team of ch10_multi_gpu_mpi.
#pragma once

#include <memory>

#include "ch10_reduction/multi_gpu/team.hpp"

namespace pmpp::ch10::multi_gpu {

/// This process's rank of MPI_COMM_WORLD (MPI must be initialized), on GPU (rank on this machine) mod
/// (GPUs on this machine). Every rank must run on one machine: the rings map their neighbours' memory
/// with CUDA IPC. Collective: every process calls it with the same arguments.
std::unique_ptr<Team> make_mpi_team(std::size_t capacity, RingOptions ring_options, FusedRingOptions fused_options);

}  // namespace pmpp::ch10::multi_gpu
