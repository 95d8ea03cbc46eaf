// attack: before main(), take all the GPU memory but 64 MiB and hold it for the whole case, so that
//         a case that needs more (past 2^32 elements: its RepeatingArray asks for 208 MiB) finds too
//         little and would be skipped as "not gradable", on any GPU, instead of failed. The test
//         first ends the code under test and looks again: the memory comes back, and the case fails
//         (it is never counted as not gradable where the solution is graded).
// exercise: coarsened_sum
// base: starter
// earns: nothing
#include <cuda_runtime_api.h>
namespace {
struct HoldMemoryTheTestNeeds {
  HoldMemoryTheTestNeeds() {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return;
    std::size_t held = 0;
    for (std::size_t chunk = std::size_t{1} << 30; chunk >= (std::size_t{1} << 24);) {
      void* p = nullptr;
      if (held + chunk + (std::size_t{64} << 20) <= free_bytes && cudaMalloc(&p, chunk) == cudaSuccess) {
        held += chunk;
      } else {
        cudaGetLastError();
        chunk /= 2;
      }
    }
    std::printf("holding %zu MiB of GPU memory\n", held >> 20);
    std::fflush(stdout);
  }
} hold_memory_the_test_needs;
}  // namespace
