/// @file l2_flush.hpp
/// @brief Evict the L2 cache between timed runs by *reading* a buffer larger than it.
///
/// Why reading: a flush that writes (cudaMemset) leaves L2 full of dirty lines, and the timed kernel
/// then pays DRAM write bandwidth to evict them as its own loads arrive. On a 60 MB L2 that is up to
/// 60 MB of hidden writes: for a 64 MB reduction it nearly doubles the traffic. Lines that were only
/// read are clean and are dropped for free.
#pragma once

#include <cstddef>

namespace pmpp {

/// Read every 16 bytes of @p buffer (device memory, @p bytes long, initialized) on the default
/// stream; @p sink (one device word) is written only if the data has an impossible checksum, so the
/// compiler cannot remove the reads.
void flush_l2_by_reading(const void* buffer, std::size_t bytes, unsigned int* sink);

}  // namespace pmpp
