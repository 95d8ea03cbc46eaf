// The ring on the GPUs: the steps each rank enqueues, and the events that order them. Every wait here
// is on an event whose record was enqueued before it (ring.cpp sees to that, across processes too),
// so no GPU ever waits for work that has not been handed to another one.
#include "ch10_reduction/multi_gpu/ring_rank.hpp"

#include "pmpp/cuda_check.hpp"

namespace pmpp::ch10::multi_gpu::detail {

// ---- Resources ---------------------------------------------------------------------------------------

EventArray::EventArray(std::size_t count, bool interprocess) {
  // Timing off: these events only order work, and events without timing are cheaper to record and wait on.
  const unsigned flags = cudaEventDisableTiming | (interprocess ? cudaEventInterprocess : 0u);
  events_.reserve(count);
  try {
    for (std::size_t i = 0; i < count; ++i) {
      cudaEvent_t event = nullptr;
      CUDA_CHECK(cudaEventCreateWithFlags(&event, flags));
      events_.push_back(event);
    }
  } catch (...) {
    release();
    throw;
  }
}

EventArray& EventArray::operator=(EventArray&& other) noexcept {
  if (this != &other) {
    release();
    events_ = std::move(other.events_);
    other.events_.clear();
  }
  return *this;
}

EventArray::~EventArray() { release(); }

void EventArray::release() noexcept {
  for (cudaEvent_t event : events_) cudaEventDestroy(event);
  events_.clear();
}

namespace {
int make_current(int device) {
  CUDA_CHECK(cudaSetDevice(device));
  return device;
}

cudaStream_t make_stream() {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}
}  // namespace

RankResources::RankResources(int rank_, int device_, std::size_t capacity, std::size_t staging_elements,
                             int max_messages, int max_reduce_messages, bool interprocess)
    : rank(rank_), device(make_current(device_)) {
  vector = DeviceBuffer<float>(capacity);
  staging = DeviceBuffer<float>(staging_elements);
  send = make_stream();
  try {
    reduce = make_stream();
    arrived = EventArray(static_cast<std::size_t>(max_messages), interprocess);
    reduced = EventArray(static_cast<std::size_t>(max_reduce_messages), interprocess);
    own = EventArray(3, false);
  } catch (...) {
    if (reduce != nullptr) cudaStreamDestroy(reduce);
    cudaStreamDestroy(send);
    throw;
  }
}

RankResources::~RankResources() {
  cudaSetDevice(device);
  cudaStreamDestroy(send);
  cudaStreamDestroy(reduce);
}

// ---- The steps -----------------------------------------------------------------------------------------

namespace {
enum Own { kStart = 0, kSent = 1, kAdded = 2 };

void wait(cudaStream_t stream, cudaEvent_t event) { CUDA_CHECK(cudaStreamWaitEvent(stream, event, 0)); }
}  // namespace

void enqueue_begin(RankResources& me, const RightView& right, int previous_last_reduce) {
  CUDA_CHECK(cudaSetDevice(me.device));
  // The default stream (0), as `<<<grid, block>>>` launches use it: the all-reduce starts after
  // whatever wrote the vector there, like any kernel would.
  CUDA_CHECK(cudaEventRecord(me.own[kStart], 0));
  wait(me.send, me.own[kStart]);
  wait(me.reduce, me.own[kStart]);
  if (previous_last_reduce >= 0) wait(me.send, right.reduced[previous_last_reduce]);
}

//! [enqueue_send]
void enqueue_send(const RingPlan& plan, RankResources& me, const RightView& right, const LeftView& left, int m) {
  const int step = plan.step_of(m);
  const Range piece = plan.piece(plan.send_segment(me.rank, step), plan.piece_of(m));
  CUDA_CHECK(cudaSetDevice(me.device));
  // The piece must be final here. It came in at the previous step: added by this rank during the
  // reduce-scatter, or copied in by the left neighbour during the all-gather.
  if (step > 0) {
    const int previous = m - plan.chunks;
    wait(me.send, plan.reduces(step - 1) ? me.reduced[previous] : left.arrived[previous]);
  }
  // The receiver's staging slot must be free: its add of the message that last used it is done.
  if (plan.reduces(step) && m >= plan.slots) wait(me.send, right.reduced[m - plan.slots]);
  if (!piece.empty()) {
    float* to = plan.reduces(step)
                    ? right.staging + static_cast<std::size_t>(plan.slot_of(m)) * plan.chunk_elements
                    : right.vector + piece.begin;
    // A peer-to-peer copy: the sending GPU's copy engine writes into the receiver's memory (over
    // NVLink or PCIe; inside one GPU when both ranks share it).
    CUDA_CHECK(cudaMemcpyAsync(to, me.vector.data() + piece.begin, piece.size() * sizeof(float), cudaMemcpyDefault,
                               me.send));
  }
  CUDA_CHECK(cudaEventRecord(me.arrived[m], me.send));
}
//! [enqueue_send]

//! [enqueue_receive]
void enqueue_receive(const RingPlan& plan, RankResources& me, const LeftView& left, int m) {
  const int step = plan.step_of(m);
  if (!plan.reduces(step)) return;  // all-gather: the copy already wrote this rank's vector
  const Range piece = plan.piece(plan.receive_segment(me.rank, step), plan.piece_of(m));
  CUDA_CHECK(cudaSetDevice(me.device));
  wait(me.reduce, left.arrived[m]);
  const float* slot = me.staging.data() + static_cast<std::size_t>(plan.slot_of(m)) * plan.chunk_elements;
  add_into(me.vector.data() + piece.begin, slot, piece.size(), me.reduce);
  CUDA_CHECK(cudaEventRecord(me.reduced[m], me.reduce));
}
//! [enqueue_receive]

void enqueue_end(const RingPlan& plan, RankResources& me, const LeftView& left) {
  CUDA_CHECK(cudaSetDevice(me.device));
  CUDA_CHECK(cudaEventRecord(me.own[kSent], me.send));
  CUDA_CHECK(cudaEventRecord(me.own[kAdded], me.reduce));
  wait(0, me.own[kSent]);
  wait(0, me.own[kAdded]);
  // The last step's pieces land in this vector and nothing of this rank waits for them: the pieces of
  // earlier steps were waited for by the send that passed them on.
  const int last_step = plan.steps() - 1;
  for (int c = 0; c < plan.chunks; ++c) wait(0, left.arrived[last_step * plan.chunks + c]);
}

}  // namespace pmpp::ch10::multi_gpu::detail
