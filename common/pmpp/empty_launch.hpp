/// @file empty_launch.hpp
/// @brief A kernel that does nothing, to measure what every launch costs before it does any work.
///
/// Timed by KernelTimer like any stage, an empty launch takes a few microseconds: the launch, the
/// start-up and retirement of a grid, and the two timing events. Every timed kernel pays that much on
/// top of its own work, and a computation split into two launches pays it twice. For short kernels it
/// is a hard floor: a 64 MB reduction reads its input in about 20 us at peak DRAM bandwidth, so a
/// fixed cost of about 3 us is more than a tenth of the whole.
#pragma once

namespace pmpp {

/// Enqueue one block of one thread that does nothing, on the default stream.
void launch_empty_kernel();

}  // namespace pmpp
