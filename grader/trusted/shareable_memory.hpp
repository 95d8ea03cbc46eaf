/// @file shareable_memory.hpp
/// @brief The test process's device memory, made so that it can be handed to its worker and to no one
/// else.
///
/// A worker reads and writes the test's own buffers (its inputs, NaN-poisoned outputs, guard bands).
/// CUDA's legacy IPC handles would do that, but a handle is not tied to its receiver: any process
/// that knows the exporter's pid can build valid handles for what it exported, so the worker of one
/// student could open the buffers of another student's test running beside it. So the trusted test
/// executables are linked with cudaMalloc and cudaFree wrapped (`-Wl,--wrap=...`): every cudaMalloc of
/// the test (DeviceBuffer, Framed, an instructor's hidden test) is a virtual-memory allocation
/// (cuMemCreate) that can be exported only as a file descriptor, which the test passes to its own
/// worker over a Unix socket (see kMemoryFd in wire.hpp) and which nobody else can obtain.
///
/// Allocations are rounded up to the device's granularity (2 MiB on most GPUs); cudaFree synchronizes
/// the device first, as the plain one does. Where the GPU or its driver cannot export memory as a file
/// descriptor, cudaMalloc is the plain one, and such memory cannot be passed to a worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

namespace pmpp_grader {

/// One live allocation of the test's.
struct SharedAllocation {
  std::uint64_t number;  ///< in the order of allocation, never reused
  int device;
  std::uintptr_t base;
  std::size_t bytes;  ///< as mapped (rounded up to the granularity)
};

/// The allocation that holds @p pointer, if it is one of the test's shareable ones.
std::optional<SharedAllocation> shared_allocation_of(const void* pointer);

/// Whether allocation @p number is still allocated.
bool allocation_alive(std::uint64_t number);

/// One piece of an allocation's memory, as it travels to the worker (see HandleMessage in wire.hpp).
struct SharedPiece {
  int descriptor;  ///< owned here: closed when the allocation is freed
  std::size_t offset;
  std::size_t bytes;
  bool repeated;
};

/// The pieces of allocation @p number, each exported as a file descriptor on first use, and the size of
/// its address range in @p bytes; empty if the allocation is gone or cannot be exported.
std::vector<SharedPiece> allocation_pieces(std::uint64_t number, std::size_t* bytes);

/// What allocate_mostly_repeated made.
struct MostlyRepeated {
  void* base = nullptr;
  std::size_t block = 0;        ///< the size of the repeated block, and of every window's alignment
  std::size_t repeated_at = 0;  ///< an offset where the repeated block is mapped
  std::size_t physical = 0;     ///< the device memory it holds
  /// The byte ranges [begin, end) with memory of their own: the windows asked for, widened to whole
  /// blocks and joined where they touch.
  std::vector<std::pair<std::size_t, std::size_t>> own;
};

/// @p bytes of device addresses holding little device memory, for tests of 64-bit indices on arrays
/// larger than a GPU's memory. The windows in @p own ((offset, bytes) pairs, widened to whole blocks)
/// have memory of their own; every other block of the range maps one and the same block of
/// @p block_bytes (rounded up to the granularity), so what is written into one of them is read in
/// all. Freed with cudaFree, handed to the worker as any allocation. cudaErrorNotSupported where the
/// GPU cannot map memory this way; cudaErrorMemoryAllocation when the memory is not there.
cudaError_t allocate_mostly_repeated(MostlyRepeated* made, std::size_t bytes, std::size_t block_bytes,
                                     const std::vector<std::pair<std::size_t, std::size_t>>& own);

/// Hold all of the current GPU's free memory but @p left_free bytes until the process ends (plain
/// device memory, never handed to a worker): the test then runs as on a smaller GPU. Returns what is
/// left free.
std::size_t hold_all_but(std::size_t left_free);

/// True once an allocation of the test failed for want of GPU memory: a fact the report uses (the
/// case may have met another case's use of the GPU, and then runs again alone).
bool allocation_ran_short();

}  // namespace pmpp_grader
