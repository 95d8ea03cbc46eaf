// --clean-up (see sandbox.hpp): end every process of a user, then remove what it may have left where
// another user could find it. With --isolate nothing of a case outlives its namespaces; this is the
// part that holds in every mode: the processes, found by user, and, for a sandbox that could not
// isolate, its files in /dev/shm and /dev/mqueue and its System V IPC objects.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "sandbox.hpp"

namespace pmpp_sandbox {
namespace {

/// True when a process other than a zombie runs with @p uid as its real or effective user.
bool any_process_of(uid_t uid) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) fail("cannot list /proc");
  bool found = false;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream status(std::string("/proc/") + entry->d_name + "/status");
    std::string line;
    bool zombie = false, owned = false;
    while (std::getline(status, line)) {
      if (line.rfind("State:", 0) == 0) zombie = line.find('Z') != std::string::npos;
      if (line.rfind("Uid:", 0) == 0) {
        unsigned long real = 0, effective = 0;
        if (std::sscanf(line.c_str(), "Uid: %lu %lu", &real, &effective) == 2) owned = real == uid || effective == uid;
      }
    }
    if (owned && !zombie) found = true;
  }
  closedir(proc);
  return found;
}

bool empty_folder(int dir);

/// Remove the entry @p name of the folder @p dir (described by @p st): a folder with all it holds.
bool remove_entry(int dir, const std::string& name, const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return unlinkat(dir, name.c_str(), 0) == 0;
  const int inner = openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  const bool emptied = inner >= 0 && empty_folder(inner);
  return unlinkat(dir, name.c_str(), AT_REMOVEDIR) == 0 && emptied;
}

/// Remove the entries of the folder @p dir (an open descriptor, which this closes) that @p take
/// accepts; false if one could not be removed. By descriptor, entry by entry: any name, at any
/// depth, with no path to spell out (a path can be too long to name).
template <class Take>
bool remove_entries(int dir, Take take) {
  DIR* d = fdopendir(dir);
  if (d == nullptr) {
    close(dir);
    return false;
  }
  bool removed = true;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    struct stat st {};
    if (name == "." || name == ".." || fstatat(dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (take(st)) removed = remove_entry(dirfd(d), name, st) && removed;
  }
  closedir(d);
  return removed;
}

bool empty_folder(int dir) {
  return remove_entries(dir, [](const struct stat&) { return true; });
}

/// Remove what @p uid owns directly in @p path (shared memory segments, message queues), folders with
/// all they hold; false if something of it is left.
bool remove_entries_of(uid_t uid, const char* path) {
  const int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return true;  // no such folder here
  return remove_entries(dir, [uid](const struct stat& st) { return st.st_uid == uid; });
}

/// Remove the System V IPC objects of @p uid listed in /proc/sysvipc/@p kind (its id is the second
/// column, its owner's uid the column named "uid"); false if one is left.
bool remove_ipc_objects_of(uid_t uid, const std::string& kind) {
  std::ifstream table("/proc/sysvipc/" + kind);
  std::string header;
  if (!std::getline(table, header)) return true;
  std::istringstream names(header);
  int uid_column = -1, column = 0;
  for (std::string name; names >> name; ++column)
    if (name == "uid") uid_column = column;
  if (uid_column < 0) return false;
  bool removed = true;
  for (std::string line; std::getline(table, line);) {
    std::istringstream fields(line);
    std::string field;
    long id = -1, owner = -1;
    for (int i = 0; fields >> field; ++i) {
      if (i == 1) id = std::stol(field);
      if (i == uid_column) owner = std::stol(field);
    }
    if (owner != static_cast<long>(uid) || id < 0) continue;
    const int i = static_cast<int>(id);
    const int status = kind == "shm" ? shmctl(i, IPC_RMID, nullptr)
                       : kind == "msg" ? msgctl(i, IPC_RMID, nullptr)
                                       : semctl(i, 0, IPC_RMID);
    removed = status == 0 && removed;
  }
  return removed;
}

}  // namespace

int clean_up(uid_t uid, gid_t gid) {
  if (uid == 0) fail("will not end the processes of root");
  close_range(3, ~0U, 0);  // the killer below runs as the user for a moment: it holds nothing of ours
  // kill(-1) from a process running as the user reaches every process of that user (and nothing
  // else): a double-forked daemon included. Repeated, because a fork bomb races the first rounds.
  for (int round = 0; round < 500 && any_process_of(uid); ++round) {
    const pid_t killer = fork();
    check(killer >= 0, "fork");
    if (killer == 0) {
      if (setgroups(0, nullptr) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) _exit(1);
      kill(-1, SIGKILL);
      _exit(0);
    }
    int status = 0;
    waitpid(killer, &status, 0);
    usleep(round < 10 ? 2000 : 20000);
  }
  if (any_process_of(uid)) fail("processes of uid " + std::to_string(uid) + " are still running");
  bool removed = remove_entries_of(uid, "/dev/shm") && remove_entries_of(uid, "/dev/mqueue");
  for (const char* kind : {"shm", "msg", "sem"}) removed = remove_ipc_objects_of(uid, kind) && removed;
  if (!removed) fail("could not remove everything uid " + std::to_string(uid) + " left in /dev/shm, /dev/mqueue or "
                     "System V IPC");
  return 0;
}

}  // namespace pmpp_sandbox
