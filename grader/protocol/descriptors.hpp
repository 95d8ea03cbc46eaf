/// @file descriptors.hpp
/// @brief Passing a file descriptor with a HandleMessage over a Unix socket (SCM_RIGHTS): how the
/// trusted side hands its device memory to its worker (see kMemoryFd in wire.hpp).
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wire.hpp"

namespace pmpp_grader {

/// Send @p message with a duplicate of @p fd attached; false when the other end is gone.
inline bool send_descriptor(int socket, const HandleMessage& message, int fd) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  iovec data{const_cast<HandleMessage*>(&message), sizeof message};
  msghdr header{};
  header.msg_iov = &data;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  cmsghdr* attached = CMSG_FIRSTHDR(&header);
  attached->cmsg_level = SOL_SOCKET;
  attached->cmsg_type = SCM_RIGHTS;
  attached->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(attached), &fd, sizeof fd);
  for (;;) {
    const ssize_t n = ::sendmsg(socket, &header, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    return n == static_cast<ssize_t>(sizeof message);
  }
}

/// Receive one message that is already waiting, with its descriptor (close-on-exec); -1 when none is
/// waiting or it is not one HandleMessage with exactly one descriptor.
inline int receive_descriptor(int socket, HandleMessage* message) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  iovec data{message, sizeof *message};
  msghdr header{};
  header.msg_iov = &data;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(socket, &header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  const cmsghdr* attached = n > 0 ? CMSG_FIRSTHDR(&header) : nullptr;
  if (attached == nullptr || attached->cmsg_level != SOL_SOCKET || attached->cmsg_type != SCM_RIGHTS ||
      attached->cmsg_len != CMSG_LEN(sizeof(int)))
    return -1;
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(attached), sizeof fd);
  if (n != static_cast<ssize_t>(sizeof *message) || (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace pmpp_grader
