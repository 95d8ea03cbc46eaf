// The trusted side's handle on a worker process (see worker_process.hpp).
#include "worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "descriptors.hpp"
#include "frame_io.hpp"
#include "remote_call.hpp"
#include "shareable_memory.hpp"

namespace pmpp_grader {
namespace {

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbreviation = sigabbrev_np(sig);
    return std::string("was killed by signal ") + (abbreviation ? std::string("SIG") + abbreviation : std::to_string(sig)) +
           " (" + strsignal(sig) + ")";
  }
  return "ended (wait status " + std::to_string(status) + ")";
}

Clock::time_point seconds_from(Clock::time_point start, double seconds) {
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

}  // namespace

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& command, double timeout_s, std::size_t output_limit,
                             const std::string& freeze_cgroup)
    : timeout_s_(timeout_s), output_limit_(output_limit) {
  if (command.empty()) {
    lost_reason_ = "there is no worker to start";
    return;
  }
  int requests[2], replies[2], printed[2], memory[2];
  if (pipe2(requests, O_CLOEXEC) != 0 || pipe2(replies, O_CLOEXEC) != 0 || pipe2(printed, O_CLOEXEC) != 0 ||
      socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, memory) != 0) {
    lost_reason_ = std::string("could not make pipes: ") + std::strerror(errno);
    return;
  }
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  const std::string exec_failed = "could not start " + command.front() + "\n";
  const long max_fd = sysconf(_SC_OPEN_MAX);
  const pid_t parent = getpid();

  pid_ = fork();
  if (pid_ == 0) {
    setpgid(0, 0);                     // its own process group, killed as a whole when it ends
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // and it dies with this process
    if (getppid() != parent) _exit(127);
    // Move the pipe ends above the target numbers first, so no dup2 below overwrites another.
    const int in = fcntl(requests[0], F_DUPFD, 10), out = fcntl(replies[1], F_DUPFD, 10);
    const int print = fcntl(printed[1], F_DUPFD, 10), nothing = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int handles = fcntl(memory[1], F_DUPFD, 10);
    if (in < 0 || out < 0 || print < 0 || nothing < 0 || handles < 0 || dup2(nothing, 0) < 0 || dup2(print, 1) < 0 ||
        dup2(print, 2) < 0 || dup2(in, kRequestFd) < 0 || dup2(out, kReplyFd) < 0 || dup2(handles, kMemoryFd) < 0)
      _exit(127);
    // Nothing else of this process may reach the worker: above all not the descriptor the verdict is
    // written to.
    if (close_range(kMemoryFd + 1, ~0U, 0) != 0)
      for (long fd = kMemoryFd + 1; fd < max_fd; ++fd) close(static_cast<int>(fd));
    execv(argv[0], argv.data());
    (void)!write(2, exec_failed.data(), exec_failed.size());
    _exit(127);
  }
  close(requests[0]);
  close(replies[1]);
  close(printed[1]);
  close(memory[1]);
  if (pid_ > 0) hold_.emplace(pid_, freeze_cgroup);
  request_fd_ = requests[1];
  reply_fd_ = replies[0];
  memory_fd_ = memory[0];
  shutdown(memory_fd_, SHUT_RD);  // the worker may send nothing this way
  if (pid_ < 0) {
    close(printed[0]);
    lost_reason_ = std::string("could not fork: ") + std::strerror(errno);
    return;
  }
  drainer_ = std::thread([this, fd = printed[0]] { drain_output(fd); });

  std::string hello;
  const auto failure = read_frame(reply_fd_, hello, seconds_from(Clock::now(), timeout_s_));
  if (failure == ReadFailure::timed_out)
    lose("it did not start within " + seconds_text(timeout_s_) + " s");
  else if (failure == ReadFailure::closed)
    lose("it ended before it could be called: it " + finish(1.0));
  else if (failure)
    lose("it did not start properly: it broke the protocol");
  else if (hello != kHandshake)
    lose("it did not start properly: its first message was not the worker's");
}

WorkerProcess::~WorkerProcess() { stop(); }

void WorkerProcess::drain_output(int fd) {
  char buffer[1 << 16];
  std::size_t after_stop = 0;
  for (;;) {
    const bool stopping = stop_draining_;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, stopping ? 0 : 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (ready == 0 && stopping)) break;
    if (ready == 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every writer is gone
    const std::size_t before = output_total_.fetch_add(static_cast<std::size_t>(n));
    if (before < output_limit_) {
      std::lock_guard<std::mutex> lock(output_mutex_);
      output_.append(buffer, std::min(static_cast<std::size_t>(n), output_limit_ - before));
    }
    // After stop(), only what is already waiting, and not much of it: a process the worker left
    // behind could print forever.
    if (stopping && (after_stop += static_cast<std::size_t>(n)) > (1u << 20)) break;
  }
  close(fd);
}

std::string WorkerProcess::finish(double grace_s) {
  if (pid_ <= 0 || reaped_) return exit_description_;
  if (grace_s > 0) {
    const auto grace = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace_s));
    const auto until = Clock::now() + grace;
    while (Clock::now() < until) {
      siginfo_t info{};
      if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) break;
      usleep(10000);
    }
  }
  // Kill what it left in its process group while its (unreaped) pid still anchors the group, then it.
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  exit_description_ = describe_status(status);
  return exit_description_;
}

void WorkerProcess::lose(const std::string& reason) {
  if (lost_reason_.empty()) lost_reason_ = reason;
  finish(0);
}

bool WorkerProcess::share_memory(const Request& request, FrameWriter& frame) {
  std::vector<std::uint64_t> released;
  for (auto it = shared_.begin(); it != shared_.end();) {
    if (allocation_alive(*it)) {
      ++it;
    } else {
      released.push_back(*it);
      it = shared_.erase(it);
    }
  }
  frame.put<std::uint32_t>(static_cast<std::uint32_t>(released.size()));
  for (std::uint64_t number : released) frame.put<std::uint64_t>(number);
  for (std::uint64_t number : request.allocations) {
    if (shared_.count(number)) continue;
    std::size_t bytes = 0;
    const std::vector<SharedPiece> pieces = allocation_pieces(number, &bytes);
    if (pieces.empty())
      throw std::runtime_error("grader: could not export the test's device memory to the worker");
    for (const SharedPiece& piece : pieces) {
      const HandleMessage message{number, bytes, piece.offset, piece.bytes,
                                  static_cast<std::uint32_t>(pieces.size()), piece.repeated ? 1u : 0u};
      if (!send_descriptor(memory_fd_, message, piece.descriptor)) return false;
    }
    shared_.insert(number);
  }
  return true;
}

Outcome WorkerProcess::call(const Request& request) {
  Outcome outcome;
  if (lost()) {
    outcome.message = lost_reason_;
    return outcome;
  }
  FrameWriter sending;
  const bool shared = share_memory(request, sending);
  sending.put_raw(request.frame.bytes());
  const auto start = Clock::now();
  if (hold_) hold_->release();
  const bool sent = shared && write_frame(request_fd_, sending.bytes());
  std::string frame;
  const auto failure = sent ? read_frame(reply_fd_, frame, seconds_from(start, timeout_s_))
                            : std::optional<ReadFailure>(ReadFailure::closed);
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (failure == ReadFailure::timed_out)
    lose("it did not return within " + seconds_text(timeout_s_) + " s, and was stopped");
  else if (failure == ReadFailure::too_large)
    lose("it broke the protocol (a reply longer than the limit), and was stopped");
  else if (failure)
    lose("it ended before it returned: it " + finish(1.0));
  if (lost()) {
    outcome.message = lost_reason_;
    return outcome;
  }
  try {
    FrameReader in(frame);
    const auto status = static_cast<Status>(in.get<std::uint8_t>());
    outcome.type = printable(in.get_string(), 200);
    outcome.message = printable(in.get_string());
    outcome.cuda_code = in.get<std::int32_t>();
    if (!in.at_end()) throw Malformed("bytes after the reply");
    switch (status) {
      case Status::returned: outcome.kind = Outcome::Kind::returned; return outcome;
      case Status::threw: outcome.kind = Outcome::Kind::threw; return outcome;
      case Status::cuda_error: outcome.kind = Outcome::Kind::cuda_error; return outcome;
      case Status::bad_request: outcome.kind = Outcome::Kind::bad_request; return outcome;
    }
    throw Malformed("an unknown status");
  } catch (const Malformed&) {
    lose("it broke the protocol (a malformed reply), and was stopped");
  }
  outcome = Outcome{};
  outcome.message = lost_reason_;
  return outcome;
}

bool WorkerProcess::hold_still() { return !lost() && hold_ && hold_->hold(); }

void WorkerProcess::let_go() {
  if (hold_ && !reaped_) hold_->release();
}

void WorkerProcess::stop(double grace_s) {
  let_go();  // it exits on its own once its requests end, and is killed if not
  if (request_fd_ >= 0) close(request_fd_);  // end of requests: a well-behaved worker exits now
  request_fd_ = -1;
  if (memory_fd_ >= 0) close(memory_fd_);
  memory_fd_ = -1;
  finish(grace_s);
  if (reply_fd_ >= 0) close(reply_fd_);
  reply_fd_ = -1;
  stop_draining_ = true;
  if (drainer_.joinable()) drainer_.join();
}

std::string WorkerProcess::output() const {
  std::lock_guard<std::mutex> lock(output_mutex_);
  return printable(output_, output_limit_);
}

}  // namespace pmpp_grader
