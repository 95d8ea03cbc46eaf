// attack: before main(), ask CUDA for every GPU of the machine (CUDA_VISIBLE_DEVICES cleared before
//         CUDA starts) and try to open every GPU device node. A worker may use only the GPU of its
//         runner: it prints how many GPUs it could use and how many GPU device nodes it could open,
//         which must be one each (none without a GPU).
// exercise: max_reduction
// base: solution
// earns: as the solution
namespace {
struct UseAnotherGpu {
  UseAnotherGpu() {
    unsetenv("CUDA_VISIBLE_DEVICES");
    int nodes = 0;
    for (int minor = 0; minor < 64; ++minor) {
      const int fd = open(("/dev/nvidia" + std::to_string(minor)).c_str(), O_RDWR);
      if (fd >= 0) {
        ++nodes;
        close(fd);
      }
    }
    int usable = 0;
    if (cudaGetDeviceCount(&usable) != cudaSuccess) {
      cudaGetLastError();
      usable = 0;
    }
    std::printf("GPUs usable: %d; GPU device nodes opened: %d\n", usable, nodes);
    std::fflush(stdout);
  }
} use_another_gpu;
}  // namespace
