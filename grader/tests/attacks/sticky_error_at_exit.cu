// attack: leave the GPU in a bad state at exit, after every call has returned: a kernel that writes
//         to an illegal address (a sticky error), a changed device limit. The next case gets a fresh
//         process, so the solved exercise keeps its points.
// exercise: max_reduction
// base: solution
// earns: as the solution
namespace {
__global__ void write_nowhere(float* p) { p[threadIdx.x] = 1.0f; }
struct BadStateAtExit {
  BadStateAtExit() {
    std::atexit([] {
      cudaDeviceSetLimit(cudaLimitStackSize, 1 << 16);
      cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 10);
      write_nowhere<<<1, 32>>>(reinterpret_cast<float*>(16));
      cudaDeviceSynchronize();
    });
  }
} bad_state_at_exit;
}  // namespace
