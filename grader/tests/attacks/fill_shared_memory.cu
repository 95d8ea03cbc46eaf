// attack: before main(), take as much shared memory as it can, up to 3 GiB each: files in /dev/shm
//         and a System V segment, every page touched. Shared memory is not private memory (the
//         RLIMIT_DATA limit does not count it): it is capped where it is made and counted by the
//         case's memory cgroup. It prints how much it held.
// exercise: max_reduction
// base: starter
// earns: nothing
#include <sys/ipc.h>
#include <sys/shm.h>
namespace {
struct FillSharedMemory {
  static std::size_t touch(char* memory, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; i += 4096) memory[i] = 1;
    return bytes;
  }
  FillSharedMemory() {
    const std::size_t chunk = std::size_t{64} << 20, most = std::size_t{3} << 30;
    std::size_t in_files = 0, in_segments = 0;
    const std::string zeros(chunk, '\0');  // written pages of a tmpfs file are memory, as touched ones are
    for (int n = 0; in_files < most; ++n) {
      const int fd = open(("/dev/shm/pmpp-fill-" + std::to_string(n)).c_str(), O_CREAT | O_WRONLY, 0600);
      const bool fits = fd >= 0 && write(fd, zeros.data(), chunk) == static_cast<ssize_t>(chunk);
      if (fd >= 0) close(fd);
      if (!fits) break;
      in_files += chunk;
    }
    for (; in_segments < most;) {
      const int id = shmget(IPC_PRIVATE, chunk, IPC_CREAT | 0600);
      if (id < 0) break;
      void* memory = shmat(id, nullptr, 0);
      if (memory == reinterpret_cast<void*>(-1)) break;
      in_segments += touch(static_cast<char*>(memory), chunk);
    }
    std::printf("shared memory held: %zu MiB in /dev/shm, %zu MiB in System V segments\n", in_files >> 20,
                in_segments >> 20);
    std::fflush(stdout);
  }
} fill_shared_memory;
}  // namespace
