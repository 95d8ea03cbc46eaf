/// @file worker_process.hpp
/// @brief The trusted side's handle on one worker process: start it, check its handshake, send it
/// calls and time them, collect what it prints (up to a limit), and stop it.
///
/// Nothing the worker does can make this class block forever or grow without bound: every read has a
/// deadline, frames have a maximum size, and its output is drained and cut. A worker that crashes,
/// exits, hangs, or sends anything but a well-formed reply is *lost*: it is killed, and every later
/// call fails at once with the reason.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hold_still.hpp"
#include "wire.hpp"

namespace pmpp_grader {

struct Request;

/// How a call ended.
struct Outcome {
  enum class Kind { returned, threw, cuda_error, bad_request, lost } kind = Kind::lost;
  std::string type;     ///< for threw: the exception's type, e.g. "std::invalid_argument"
  std::string message;  ///< the exception's or the error's text, or why the worker was lost
  int cuda_code = 0;    ///< for cuda_error, and for a thrown pmpp::CudaError
  double seconds = 0;   ///< from sending the request to reading the reply, on the trusted side's clock
};

class WorkerProcess {
 public:
  /// Start @p command (the worker, possibly behind a sandbox) with the protocol pipes on kRequestFd
  /// and kReplyFd, the memory socket on kMemoryFd and its output captured, then wait up to
  /// @p timeout_s seconds for its handshake.
  /// Check lost() afterwards. @p output_limit bytes of its output are kept, the rest counted.
  /// @p freeze_cgroup: the cgroup v2 folder it runs in, frozen by hold_still() ("": none).
  WorkerProcess(const std::vector<std::string>& command, double timeout_s, std::size_t output_limit,
                const std::string& freeze_cgroup = "");
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess();

  /// Send one request (see remote_call.hpp) and wait up to the timeout for the reply. Before it, the
  /// worker is sent the allocations the request uses that it does not have yet, and told which of
  /// those it has were freed since. A worker held still is let go once the clock has started.
  Outcome call(const Request& request);

  /// Stop every process and thread of the worker until its next call (hold_still.hpp). False when
  /// that could not be made sure of.
  bool hold_still();
  /// Let it go now, if it is held (a worker that will not be called again, or whose cgroup another
  /// worker is about to join).
  void let_go();

  /// Its process id, which also names its process group.
  pid_t pid() const { return pid_; }
  bool lost() const { return !lost_reason_.empty(); }
  const std::string& lost_reason() const { return lost_reason_; }

  /// End the worker: close its request pipe (it exits on its own), and kill its process group if it
  /// has not exited within @p grace_s seconds (a worker behind a profiler exits once the profiler has
  /// written its report). Idempotent.
  void stop(double grace_s = 1.0);

  /// What the worker printed on stdout and stderr (both go to one pipe), up to the limit, made
  /// printable; and how many bytes it printed in all.
  std::string output() const;
  std::size_t output_bytes() const { return output_total_; }

 private:
  void lose(const std::string& reason);  // record the first reason, kill the worker
  /// Kill the worker's process group and reap it (after up to @p grace_s seconds to exit on its own);
  /// returns how it ended: "exited with status 0", "was killed by signal ...".
  std::string finish(double grace_s);
  void drain_output(int fd);

  pid_t pid_ = -1;
  std::optional<HoldStill> hold_;
  bool reaped_ = false;
  std::string exit_description_;
  /// The request's frame, after sending what the worker needs first; false when it is gone.
  bool share_memory(const Request& request, FrameWriter& frame);

  int request_fd_ = -1, reply_fd_ = -1, memory_fd_ = -1;
  std::set<std::uint64_t> shared_;  // the allocations this worker was sent and not told are freed
  double timeout_s_;
  std::string lost_reason_;
  std::size_t output_limit_;
  mutable std::mutex output_mutex_;
  std::string output_;
  std::atomic<std::size_t> output_total_{0};
  std::atomic<bool> stop_draining_{false};
  std::thread drainer_;
};

/// Split @p text at newlines into a command's arguments (empty lines dropped): how the sandbox and
/// clean-up commands arrive in the environment.
std::vector<std::string> split_lines(const std::string& text);

}  // namespace pmpp_grader
