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

/// A file descriptor for allocation @p number's memory, made on first use and owned here (closed when
/// the allocation is freed), and its size in @p bytes; -1 if the allocation is gone or cannot be
/// exported.
int allocation_descriptor(std::uint64_t number, std::size_t* bytes);

/// True once an allocation of the test failed for want of GPU memory: a fact the report uses (the
/// case may have met another case's use of the GPU, and then runs again alone).
bool allocation_ran_short();

}  // namespace pmpp_grader
