// attack: fill the filter in constant memory with NaN at exit, after every call has returned (a
//         filter left for the next case). The next case gets a fresh process, so the solved exercise
//         keeps its points.
// exercise: conv1d_tiled_const
// base: solution
// earns: as the solution
namespace {
struct PoisonFilterAtExit {
  PoisonFilterAtExit() {
    std::atexit([] {
      const std::vector<float> nan(2 * pmpp::ex07::MAX_RADIUS_1D + 1, __builtin_nanf(""));
      cudaMemcpyToSymbol(pmpp::ex07::F_c, nan.data(), nan.size() * sizeof(float));
      cudaDeviceSynchronize();
    });
  }
} poison_filter_at_exit;
}  // namespace
