// What --isolate does (see sandbox.hpp), as root, before the change of user. In new mount, IPC and
// network namespaces, which die with the case's last process:
// - the whole file system but /proc is read-only, so nothing the code writes outside its scratch space
//   can outlive the case or reach the next one (world-writable folders such as /run/lock included);
// - its scratch space is fresh and size-limited: /tmp, /var/tmp and /dev/shm are new tmpfs mounts,
//   and System V shared memory and POSIX message queues are new and capped;
// - chosen paths (the tests, the build, other submissions, the reports) show up empty;
// - /dev holds only the devices code needs and, of the GPUs, only the one it was given, and the
//   driver's list of GPUs (/proc/driver/nvidia/gpus) shows only that one: CUDA_VISIBLE_DEVICES is a
//   request the code could change, a device node it cannot open is not;
// - there is no network, not even loopback or an abstract Unix socket shared with another case: the
//   inputs of hidden tests cannot leave, and cases graded at once cannot talk. With --loopback (a worker
//   behind a profiler, which talks to the process it profiles over TCP) the namespace's own loopback is
//   up: it reaches only the processes of this namespace, so still nothing outside the case.
#include <fcntl.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sandbox.hpp"

namespace pmpp_sandbox {
namespace {

constexpr unsigned long long kMiB = 1ull << 20;
constexpr unsigned long long kTmpBytes = 1024 * kMiB;      // a compiler's temporary files fit
constexpr unsigned long long kVarTmpBytes = 64 * kMiB;
constexpr unsigned long long kSharedMemoryBytes = 256 * kMiB;  // /dev/shm, and System V segments in all

/// The new IPC namespace starts with the kernel's defaults, which allow shared memory as large as
/// the machine's: cap it (the limits are the namespace's own).
void cap_ipc() {
  const long page = sysconf(_SC_PAGESIZE);
  write_text("/proc/sys/kernel/shmmax", std::to_string(kSharedMemoryBytes));
  write_text("/proc/sys/kernel/shmall", std::to_string(kSharedMemoryBytes / static_cast<unsigned long long>(page)));
  write_text("/proc/sys/kernel/shmmni", "64");
  write_text("/proc/sys/kernel/msgmni", "16");
  if (access("/proc/sys/fs/mqueue/queues_max", F_OK) == 0) write_text("/proc/sys/fs/mqueue/queues_max", "16");
}

void mount_tmpfs(const std::string& path, unsigned long flags, const std::string& options) {
  check(mount("none", path.c_str(), "tmpfs", flags, options.c_str()) == 0, "cannot mount a fresh " + path);
}

/// Show what @p fd (an O_PATH descriptor opened before something covered it) refers to at @p target.
void bind_descriptor(int fd, const std::string& target) {
  const std::string source = "/proc/self/fd/" + std::to_string(fd);
  check(mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) == 0, "cannot show " + target);
  close(fd);
}

// ---- A read-only file system ----------------------------------------------------------------------

/// A mount point as /proc/self/mountinfo writes it, with its octal escapes (\040 for a space) undone.
std::string unescape(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && std::isdigit(static_cast<unsigned char>(field[i + 1]))) {
      out += static_cast<char>(std::stoi(field.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

/// Every mount read-only (keeping its other flags; ST_* equal MS_* on Linux), but /proc and what is
/// mounted below it: the CUDA driver fails to start on a read-only /proc, and what a process may
/// write there (its own entries; /proc/sys is root's) ends with the process.
void make_read_only() {
  std::ifstream mountinfo("/proc/self/mountinfo");
  for (std::string line; std::getline(mountinfo, line);) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    const std::string path = unescape(point);
    if (path == "/proc" || path.rfind("/proc/", 0) == 0) continue;
    struct statvfs info {};
    if (statvfs(path.c_str(), &info) != 0) continue;  // gone from view (under a later mount)
    const unsigned long kept =
        info.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_NOATIME | ST_NODIRATIME | ST_RELATIME);
    check(mount(nullptr, path.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | kept, nullptr) == 0,
          "cannot make " + path + " read-only");
  }
}

// ---- Hidden paths ---------------------------------------------------------------------------------

void hide(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return;  // nothing there to hide
  if (S_ISDIR(st.st_mode)) {
    mount_tmpfs(path, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000");
  } else {
    check(mount("/dev/null", path.c_str(), nullptr, MS_BIND, nullptr) == 0 &&
              mount(nullptr, path.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0,
          "cannot hide " + path);
  }
}

// ---- Devices: only the ones code needs, and one GPU -----------------------------------------------

/// "00000000:3B:00.0" (nvidia-smi) or "0000:3b:00.0" (the driver's /proc): the driver's spelling.
std::string driver_bus_id(std::string bus) {
  for (char& c : bus) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t colon = bus.find(':');
  if (colon != std::string::npos && colon > 4) bus.erase(0, colon - 4);
  return bus;
}

const std::string kGpuList = "/proc/driver/nvidia/gpus";

/// The device node of the GPU at @p bus: /dev/nvidia<minor>, with the minor the driver reports.
std::string gpu_node(const std::string& bus) {
  std::ifstream information(kGpuList + "/" + bus + "/information");
  for (std::string line; std::getline(information, line);) {
    if (line.rfind("Device Minor:", 0) == 0) return "/dev/nvidia" + std::to_string(std::stoi(line.substr(13)));
  }
  fail("no GPU at " + bus + " in " + kGpuList + " (give --gpu the bus id nvidia-smi reports)");
}

struct Node {
  std::string name;  // under /dev
  int fd;            // O_PATH, opened while the real /dev was in view
};

/// A new /dev: a small tmpfs holding the usual character devices, the GPU's nodes when @p gpu names
/// one, fresh /dev/shm and /dev/mqueue, and nothing else; read-only itself.
void fresh_dev(const std::string& gpu) {
  std::vector<std::string> names{"null", "zero", "full", "random", "urandom"};
  if (!gpu.empty()) {
    names.insert(names.end(), {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"});
    names.push_back(gpu_node(gpu).substr(5));
  }
  std::vector<Node> nodes;
  for (const std::string& name : names) {
    const int fd = open(("/dev/" + name).c_str(), O_PATH | O_CLOEXEC);
    if (fd >= 0) nodes.push_back({name, fd});
    else check(name.rfind("nvidia-uvm", 0) == 0 && errno == ENOENT, "cannot find /dev/" + name);
  }
  mount_tmpfs("/dev", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k");
  for (const Node& node : nodes) {
    const std::string path = "/dev/" + node.name;
    const int placeholder = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0);
    check(placeholder >= 0, "cannot make " + path);
    close(placeholder);
    bind_descriptor(node.fd, path);
  }
  check(symlink("/proc/self/fd", "/dev/fd") == 0 && symlink("/proc/self/fd/0", "/dev/stdin") == 0 &&
            symlink("/proc/self/fd/1", "/dev/stdout") == 0 && symlink("/proc/self/fd/2", "/dev/stderr") == 0,
        "cannot link /dev/fd");
  check(mkdir("/dev/shm", 01777) == 0 && mkdir("/dev/mqueue", 01777) == 0, "cannot make /dev/shm");
  mount_tmpfs("/dev/shm", MS_NOSUID | MS_NODEV, "mode=1777,size=" + std::to_string(kSharedMemoryBytes));
  // The message queues of the new IPC namespace (a mount of type mqueue shows the mounter's).
  check(mount("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0,
        "cannot mount /dev/mqueue");
  check(mount(nullptr, "/dev", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, "mode=755,size=64k") == 0,
        "cannot make /dev read-only");
}

/// The driver's list of GPUs shows only @p gpu (or none): CUDA looks there for the GPUs to open.
void mask_gpu_list(const std::string& gpu) {
  struct stat st {};
  if (stat(kGpuList.c_str(), &st) != 0) return;  // no NVIDIA driver loaded
  const int kept = gpu.empty() ? -1 : open((kGpuList + "/" + gpu).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  check(gpu.empty() || kept >= 0, "cannot find " + kGpuList + "/" + gpu);
  mount_tmpfs(kGpuList, MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=555,size=4k");
  if (kept >= 0) {
    check(mkdir((kGpuList + "/" + gpu).c_str(), 0555) == 0, "cannot list the GPU");
    bind_descriptor(kept, kGpuList + "/" + gpu);
  }
  check(mount(nullptr, kGpuList.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "mode=555,size=4k") == 0,
        "cannot make the list of GPUs read-only");
}

// ---- The namespace's own loopback -----------------------------------------------------------------

void bring_up_loopback() {
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  check(s >= 0, "cannot open a socket to bring up the loopback");
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  const bool up = ioctl(s, SIOCGIFFLAGS, &request) == 0 &&
                  (request.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &request) == 0);
  close(s);
  check(up, "cannot bring up the namespace's loopback");
}

}  // namespace

void isolate(const Isolation& isolation) {
  check(unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET) == 0,
        "cannot make private mount, IPC and network namespaces");
  if (isolation.loopback) bring_up_loopback();
  cap_ipc();  // while /proc is still writable
  check(mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0, "cannot make the mounts private");
  // Opened in the new namespace (a mount of another one cannot be bound here), before anything is
  // hidden (the folder may lie under a hidden path).
  int workdir = -1;
  if (!isolation.workdir.empty()) {
    workdir = open(isolation.workdir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    check(workdir >= 0, "cannot open the working folder " + isolation.workdir);
  }
  const std::string gpu = isolation.gpu.empty() ? "" : driver_bus_id(isolation.gpu);

  make_read_only();  // first: the mounts below are the only writable places
  for (const std::string& path : isolation.hide) hide(path);
  fresh_dev(gpu);
  mask_gpu_list(gpu);
  mount_tmpfs("/tmp", MS_NOSUID | MS_NODEV, "mode=1777,size=" + std::to_string(kTmpBytes));
  struct stat st {};
  if (stat("/var/tmp", &st) == 0 && S_ISDIR(st.st_mode))
    mount_tmpfs("/var/tmp", MS_NOSUID | MS_NODEV, "mode=1777,size=" + std::to_string(kVarTmpBytes));
  check(mkdir("/tmp/work", 0700) == 0 && chown("/tmp/work", isolation.uid, isolation.gid) == 0,
        "cannot make /tmp/work");
  if (workdir >= 0) {
    bind_descriptor(workdir, "/tmp/work");
    // The bind copied the read-only flag of the folder's mount: this one mount is writable.
    check(mount(nullptr, "/tmp/work", nullptr, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, nullptr) == 0,
          "cannot make the working folder writable");
  }
  check(chdir("/tmp/work") == 0, "cannot enter /tmp/work");
}

}  // namespace pmpp_sandbox
