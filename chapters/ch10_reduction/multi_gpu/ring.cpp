// The copy-engine ring all-reduce: ranks in one process, or one rank per process with CUDA IPC and a
// Messenger between the hosts. The steps each rank enqueues are in ring_schedule.cpp; here is who
// enqueues them in which order, which is what makes every event wait find its record already enqueued.
#include <cuda_runtime_api.h>

#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "ch10_reduction/multi_gpu/ring_rank.hpp"
#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
// Messenger tags. Between two processes each tag is a queue of its own, in order; with two ranks the
// left and the right neighbour are the same process, and the tags keep its queues apart.
enum Tag : int {
  kArrived = 1,          // to the right: "the event of message m is recorded"
  kReduced = 2,          // to the left: "the event of my add of message m is recorded"
  kDone = 3,             // to the left: "I have enqueued the whole all-reduce"
  kHandlesForLeft = 4,   // my vector, my staging and my add events, for the rank that sends to me
  kHandlesForRight = 5,  // my copy events, for the rank I send to
};

int max_messages(int ranks) { return 2 * (ranks - 1) * kMaxChunks; }
int max_reduce_messages(int ranks) { return (ranks - 1) * kMaxChunks; }

template <class Handle>
void append(std::vector<char>& bytes, const Handle& handle) {
  const char* raw = reinterpret_cast<const char*>(&handle);
  bytes.insert(bytes.end(), raw, raw + sizeof handle);
}

template <class Handle>
Handle read_handle(const std::vector<char>& bytes, std::size_t index) {
  Handle handle;
  std::memcpy(&handle, bytes.data() + index * sizeof handle, sizeof handle);
  return handle;
}

std::vector<cudaEvent_t> open_events(const std::vector<char>& bytes, std::size_t first, std::size_t count) {
  std::vector<cudaEvent_t> events;
  events.reserve(count);
  try {
    for (std::size_t i = 0; i < count; ++i) {
      cudaEvent_t event = nullptr;
      CUDA_CHECK(cudaIpcOpenEventHandle(&event, read_handle<cudaIpcEventHandle_t>(bytes, first + i)));
      events.push_back(event);
    }
  } catch (...) {
    for (cudaEvent_t event : events) cudaEventDestroy(event);
    throw;
  }
  return events;
}

}  // namespace

struct Ring::State {
  int ranks = 1;
  std::size_t capacity = 0;
  RingOptions options;
  std::vector<int> local;  ///< the ranks this process drives
  std::vector<std::unique_ptr<detail::RankResources>> own;  ///< same order as `local`
  std::vector<detail::RightView> right;
  std::vector<detail::LeftView> left;
  Messenger* messenger = nullptr;  ///< null: every rank is in this process
  // Across processes: the right neighbour's buffers mapped into this process, its add events and the
  // left neighbour's copy events, opened here.
  std::vector<void*> mapped;
  detail::EventArray right_reduced, left_arrived;
  int previous_last_reduce = -1;  ///< the last add of the previous all-reduce, if it had any

  std::size_t index_of(int rank) const {
    for (std::size_t i = 0; i < local.size(); ++i)
      if (local[i] == rank) return i;
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not driven by this process");
  }

  ~State() {
    // Nobody may free what a neighbour's enqueued work still uses. Not while an error unwinds the
    // stack, though: the neighbours may never come, and the program ends all processes instead.
    if (messenger != nullptr && std::uncaught_exceptions() == 0) meet_neighbours();
    for (void* pointer : mapped) cudaIpcCloseMemHandle(pointer);
  }

  // Finish this rank's work (its copies into the right neighbour), then meet both neighbours.
  void meet_neighbours() noexcept {
    try {
      cudaSetDevice(own.front()->device);
      cudaDeviceSynchronize();
      const int me = local.front();
      char token = 0;
      messenger->send((me + ranks - 1) % ranks, kDone, &token, 1);
      messenger->send((me + 1) % ranks, kDone, &token, 1);
      messenger->receive((me + 1) % ranks, kDone, &token, 1);
      messenger->receive((me + ranks - 1) % ranks, kDone, &token, 1);
      messenger->flush();
    } catch (...) {
      // A destructor cannot report, and a failed meeting means the other processes have failed already.
    }
  }
};

Ring::Ring(std::vector<int> devices, std::size_t capacity, RingOptions options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  if (devices.empty()) throw std::invalid_argument("a ring needs at least one rank");
  s.ranks = static_cast<int>(devices.size());
  s.capacity = capacity;
  s.options = options;
  // Staging for the largest all-reduce this ring will run (messages never shrink as n grows).
  const RingPlan largest = plan_ring(capacity, s.ranks, options.chunk_elements, options.slots);
  for (int r = 0; r < s.ranks; ++r) {
    const int next = devices[static_cast<std::size_t>((r + 1) % s.ranks)];
    // Copies go straight over the link where peer access is on, and through host memory otherwise.
    enable_peer_access(devices[static_cast<std::size_t>(r)], next);
  }
  for (int r = 0; r < s.ranks; ++r) {
    s.local.push_back(r);
    s.own.push_back(std::make_unique<detail::RankResources>(r, devices[static_cast<std::size_t>(r)], capacity,
                                                            largest.staging_elements(), max_messages(s.ranks),
                                                            max_reduce_messages(s.ranks), false));
  }
  for (int r = 0; r < s.ranks; ++r) {
    const detail::RankResources& next = *s.own[static_cast<std::size_t>((r + 1) % s.ranks)];
    const detail::RankResources& previous = *s.own[static_cast<std::size_t>((r + s.ranks - 1) % s.ranks)];
    s.right.push_back({const_cast<float*>(next.vector.data()), const_cast<float*>(next.staging.data()),
                       next.reduced.data()});
    s.left.push_back({previous.arrived.data()});
  }
}

Ring::Ring(int rank, int ranks, int device, std::size_t capacity, RingOptions options, Messenger& messenger)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  if (ranks < 1 || rank < 0 || rank >= ranks) throw std::invalid_argument("rank " + std::to_string(rank) + " of " +
                                                                         std::to_string(ranks));
  s.ranks = ranks;
  s.capacity = capacity;
  s.options = options;
  s.local = {rank};
  const RingPlan largest = plan_ring(capacity, ranks, options.chunk_elements, options.slots);
  s.own.push_back(std::make_unique<detail::RankResources>(rank, device, capacity, largest.staging_elements(),
                                                          max_messages(ranks), max_reduce_messages(ranks), true));
  detail::RankResources& me = *s.own.front();
  if (ranks == 1 || capacity == 0) {  // no neighbours, or no vector: all_reduce has nothing to do
    s.right.push_back({me.vector.data(), me.staging.data(), me.reduced.data()});
    s.left.push_back({me.arrived.data()});
    return;
  }
  const int right_rank = (rank + 1) % ranks, left_rank = (rank + ranks - 1) % ranks;

  //! [ipc_exchange]
  // The left neighbour copies into this rank's vector and staging, and waits for this rank's adds
  // before reusing a slot: it gets handles to all three. The right neighbour waits for this rank's
  // copies to arrive: it gets handles to those events.
  std::vector<char> for_left, for_right;
  cudaIpcMemHandle_t memory;
  CUDA_CHECK(cudaIpcGetMemHandle(&memory, me.vector.data()));
  append(for_left, memory);
  CUDA_CHECK(cudaIpcGetMemHandle(&memory, me.staging.data()));
  append(for_left, memory);
  cudaIpcEventHandle_t event;
  for (std::size_t i = 0; i < me.reduced.size(); ++i) {
    CUDA_CHECK(cudaIpcGetEventHandle(&event, me.reduced[i]));
    append(for_left, event);
  }
  for (std::size_t i = 0; i < me.arrived.size(); ++i) {
    CUDA_CHECK(cudaIpcGetEventHandle(&event, me.arrived[i]));
    append(for_right, event);
  }
  messenger.send(left_rank, kHandlesForLeft, for_left.data(), for_left.size());
  messenger.send(right_rank, kHandlesForRight, for_right.data(), for_right.size());
  std::vector<char> from_right(for_left.size()), from_left(for_right.size());  // every rank sends the same sizes
  messenger.receive(right_rank, kHandlesForLeft, from_right.data(), from_right.size());
  messenger.receive(left_rank, kHandlesForRight, from_left.data(), from_left.size());
  messenger.flush();

  void* right_vector = nullptr;
  void* right_staging = nullptr;
  CUDA_CHECK(cudaIpcOpenMemHandle(&right_vector, read_handle<cudaIpcMemHandle_t>(from_right, 0),
                                  cudaIpcMemLazyEnablePeerAccess));
  s.mapped.push_back(right_vector);
  CUDA_CHECK(cudaIpcOpenMemHandle(&right_staging, read_handle<cudaIpcMemHandle_t>(from_right, 1),
                                  cudaIpcMemLazyEnablePeerAccess));
  s.mapped.push_back(right_staging);
  // The event handles follow the two memory handles (each 64 bytes, like them).
  static_assert(sizeof(cudaIpcEventHandle_t) == sizeof(cudaIpcMemHandle_t), "handles are packed in one array");
  s.right_reduced = detail::EventArray(open_events(from_right, 2, me.reduced.size()));
  s.left_arrived = detail::EventArray(open_events(from_left, 0, me.arrived.size()));
  //! [ipc_exchange]
  s.right.push_back({static_cast<float*>(right_vector), static_cast<float*>(right_staging), s.right_reduced.data()});
  s.left.push_back({s.left_arrived.data()});
  s.messenger = &messenger;  // set up: from here on the destructor meets the neighbours before unmapping
}

Ring::~Ring() = default;

int Ring::ranks() const { return state_->ranks; }
const std::vector<int>& Ring::local_ranks() const { return state_->local; }
int Ring::device(int rank) const { return state_->own[state_->index_of(rank)]->device; }
float* Ring::vector(int rank) { return state_->own[state_->index_of(rank)]->vector.data(); }
float* Ring::right_vector(int rank) { return state_->right[state_->index_of(rank)].vector; }
Stream Ring::send_stream(int rank) { return state_->own[state_->index_of(rank)]->send; }
std::size_t Ring::capacity() const { return state_->capacity; }

RingPlan Ring::plan(std::size_t n) const {
  if (n > state_->capacity)
    throw std::invalid_argument("all-reduce of " + std::to_string(n) + " floats in a ring made for " +
                                std::to_string(state_->capacity));
  return plan_ring(n, state_->ranks, state_->options.chunk_elements, state_->options.slots);
}

//! [all_reduce]
void Ring::all_reduce(std::size_t n) {
  State& s = *state_;
  const RingPlan plan = this->plan(n);
  if (plan.messages() == 0) return;  // one rank, or nothing to add
  const std::size_t count = s.local.size();
  Messenger* const messenger = s.messenger;  // null: every rank is here, and host order is enough
  const int me = s.local.front(), right = (me + 1) % s.ranks, left = (me + s.ranks - 1) % s.ranks;
  char token = 0;
  int reduced_tokens = 0;

  for (std::size_t i = 0; i < count; ++i) detail::enqueue_begin(*s.own[i], s.right[i], s.previous_last_reduce);
  // Message by message, every rank's send, then every rank's receive: each wait below is enqueued
  // after the record it waits for. Across processes, a token from the neighbour says its record is
  // enqueued: before a rank reuses a staging slot, and before it waits for a copy to arrive.
  for (int m = 0; m < plan.messages(); ++m) {
    const bool reduces = plan.reduces(plan.step_of(m));
    for (std::size_t i = 0; i < count; ++i) {
      if (messenger && reduces && m >= plan.slots) {
        messenger->receive(right, kReduced, &token, 1);
        ++reduced_tokens;
      }
      detail::enqueue_send(plan, *s.own[i], s.right[i], s.left[i], m);
      if (messenger) messenger->send(right, kArrived, &token, 1);
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (messenger) messenger->receive(left, kArrived, &token, 1);
      detail::enqueue_receive(plan, *s.own[i], s.left[i], m);
      if (messenger && reduces) messenger->send(left, kReduced, &token, 1);
    }
  }
  for (std::size_t i = 0; i < count; ++i) detail::enqueue_end(plan, *s.own[i], s.left[i]);
  s.previous_last_reduce = plan.reduce_messages() - 1;

  if (messenger) {
    // The next all-reduce waits for the right neighbour's last add, and records every event again:
    // take the tokens of the adds not waited for yet, and do not begin again until the right
    // neighbour has enqueued all its waits on this rank's events.
    for (; reduced_tokens < plan.reduce_messages(); ++reduced_tokens) messenger->receive(right, kReduced, &token, 1);
    messenger->send(left, kDone, &token, 1);
    messenger->receive(right, kDone, &token, 1);
    messenger->flush();
  }
}
//! [all_reduce]

}  // namespace pmpp::ch10::multi_gpu
