// attack: before main(), look for what an earlier case of this attack left (a System V shared
//         memory segment, a POSIX message queue, files in /dev/shm, /tmp, /var/tmp, /run/lock and
//         /var/lock), then leave all of it for the cases after it: a channel between students, and
//         memory or disk taken from every later case. Each case starts clean, so it finds nothing.
// exercise: max_reduction
// base: starter
// earns: nothing
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/shm.h>
namespace {
struct LeaveStateBehind {
  LeaveStateBehind() {
    const key_t key = 0x504d5050;  // "PMPP"
    const char* queue = "/pmpp-left-behind";
    const char* files[] = {"/dev/shm/pmpp-left-behind", "/tmp/pmpp-left-behind", "/var/tmp/pmpp-left-behind",
                           "/run/lock/pmpp-left-behind", "/var/lock/pmpp-left-behind"};
    int found = 0, left = 0;
    found += shmget(key, 0, 0) >= 0;
    const mqd_t old_queue = mq_open(queue, O_RDONLY);
    if (old_queue != static_cast<mqd_t>(-1)) {
      ++found;
      mq_close(old_queue);
    }
    for (const char* f : files) found += access(f, F_OK) == 0;

    const int segment = shmget(key, 1 << 20, IPC_CREAT | 0666);
    left += segment >= 0;
    const mqd_t new_queue = mq_open(queue, O_CREAT | O_WRONLY, 0666, nullptr);
    if (new_queue != static_cast<mqd_t>(-1)) {
      ++left;
      mq_close(new_queue);
    }
    for (const char* f : files) left += attack::write_file(f, "answers for whoever comes next\n");
    std::printf("state left by earlier cases found: %d; left for later ones: %d\n", found, left);
    std::fflush(stdout);
  }
} leave_state_behind;
}  // namespace
