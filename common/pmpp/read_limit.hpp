/// @file read_limit.hpp
/// @brief What DRAM delivers in practice: the time of a kernel that reads a buffer once and does
/// nothing else with it.
///
/// The data sheet's peak bandwidth counts every clock of the memory interface; a kernel never gets all
/// of them (the memory also refreshes, switches rows and turns the bus around). A kernel that loads
/// every byte of an input and does nothing with it, no arithmetic worth the name and no stores, is as
/// fast as any kernel that must read that input can be, launch included. Timed like a stage, next to
/// the stages, it is the limit a reduction can actually be held to, and the gap between it and the
/// data sheet is what no reduction can close.
#pragma once

#include <cstddef>

#include "pmpp/timing.hpp"

namespace pmpp {

/// Enqueue one read of @p bytes of device memory at @p data (16-byte aligned), @p grid blocks of
/// @p block threads, on the default stream. Each thread xors the 32-bit words it reads into a checksum
/// and writes it to @p sink (one device word) only if it is one particular value, so that the
/// compiler keeps every load. The first thread also reads the last bytes past the whole 16-byte loads.
/// Throws std::invalid_argument for misaligned data or an empty launch.
void launch_read_once(const void* data, std::size_t bytes, unsigned int* sink, unsigned int grid, unsigned int block);

/// The fastest read of @p bytes at @p data over a few launch shapes, each timed by @p timer.
struct ReadLimit {
  Timing timing;
  unsigned int grid = 0, block = 0;
};
ReadLimit time_read_once(const void* data, std::size_t bytes, KernelTimer& timer);

/// The note a table with a "limit: read once" row carries.
inline constexpr const char* kReadLimitNote =
    "limit: read once = the fastest of three launch shapes of a kernel that reads the input once and does nothing "
    "else with it, timed the same way: what this GPU's DRAM delivers in practice, measured.";

}  // namespace pmpp
