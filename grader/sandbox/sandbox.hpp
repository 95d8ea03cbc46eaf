/// @file sandbox.hpp
/// @brief pmpp_sandbox's parts (see main.cpp for what it is): how it fails, how it isolates the code
/// it runs (isolation.cpp), and how it ends every trace of a user (clean_up.cpp).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace pmpp_sandbox {

/// Exit status when the sandbox could not be set up (or cleaned up): a line on stderr says why.
inline constexpr int kSetupFailed = 125;

/// Print "pmpp_sandbox: @p what" on stderr and exit with kSetupFailed.
[[noreturn]] void fail(const std::string& what);
/// fail() with @p what and errno's text unless @p ok.
void check(bool ok, const std::string& what);
/// Write @p text to the existing file @p path (a sysctl, a cgroup's file), or fail().
void write_text(const std::string& path, const std::string& text);

/// What --isolate makes of the code's view of the machine (isolation.cpp).
struct Isolation {
  uid_t uid;
  gid_t gid;
  std::string workdir;            ///< shown as /tmp/work; empty: a new, empty /tmp/work
  std::vector<std::string> hide;  ///< folders shown empty and unreadable, files shown empty
  std::string gpu;                ///< PCI bus id of the one GPU it may open; empty: none
  bool loopback = false;          ///< the namespace's own loopback up (a profiler talks to its target on it)
};

/// Enter private mount, IPC and network namespaces and set them up as @p isolation says. Runs as root, before
/// the change of user; leaves the working directory at /tmp/work.
void isolate(const Isolation& isolation);

/// End every process of @p uid and remove what it left where others could find it; 0 when done.
int clean_up(uid_t uid, gid_t gid);

}  // namespace pmpp_sandbox
