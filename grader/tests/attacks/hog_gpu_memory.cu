// attack: before main(), take all the GPU memory it can get and hold it for the whole case (and three
//         seconds more before it answers), so that the cases running beside it on the same GPU find
//         none. They run again alone, and keep their points; this starter code earns nothing.
// exercise: max_reduction
// base: starter
// earns: nothing
#include <cuda_runtime_api.h>
namespace {
struct HogGpuMemory {
  HogGpuMemory() {
    std::size_t held = 0;
    for (std::size_t chunk = std::size_t{1} << 30; chunk >= (std::size_t{1} << 24);) {
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) == cudaSuccess) {
        held += chunk;
      } else {
        cudaGetLastError();
        chunk /= 2;
      }
    }
    std::printf("holding %zu MiB of GPU memory\n", held >> 20);
    std::fflush(stdout);
    if (held > 0) sleep(3);
  }
} hog_gpu_memory;
}  // namespace
