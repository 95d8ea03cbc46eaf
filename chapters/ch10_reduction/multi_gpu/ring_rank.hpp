/// @file ring_rank.hpp
/// @brief Inside the ring: what one rank owns on its GPU, what it sees of its neighbours, and the four
/// steps every rank enqueues (begin, send a message, receive a message, end). ring.cpp drives them for
/// ranks in one process or one rank per process; nothing here knows which.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "pmpp/device_buffer.hpp"

namespace pmpp::ch10::multi_gpu::detail {

/// Events a rank records, one per message; created once, recorded once per all-reduce.
class EventArray {
 public:
  EventArray() = default;
  /// @p count events on the current device; @p interprocess: shareable with CUDA IPC.
  EventArray(std::size_t count, bool interprocess);
  /// Adopt events opened from another process's handles (destroyed with this array).
  explicit EventArray(std::vector<cudaEvent_t> events) : events_(std::move(events)) {}
  EventArray(EventArray&& other) noexcept : events_(std::move(other.events_)) { other.events_.clear(); }
  EventArray& operator=(EventArray&& other) noexcept;
  EventArray(const EventArray&) = delete;
  EventArray& operator=(const EventArray&) = delete;
  ~EventArray();
  cudaEvent_t operator[](std::size_t i) const { return events_.at(i); }
  std::size_t size() const { return events_.size(); }
  const cudaEvent_t* data() const { return events_.data(); }

 private:
  void release() noexcept;
  std::vector<cudaEvent_t> events_;
};

/// What one rank owns, all on its device.
struct RankResources {
  /// Allocates on @p device (made current): the vector, the staging slots, two streams and the events
  /// for up to @p max_messages messages.
  RankResources(int rank, int device, std::size_t capacity, std::size_t staging_elements, int max_messages,
                int max_reduce_messages, bool interprocess);
  RankResources(const RankResources&) = delete;
  RankResources& operator=(const RankResources&) = delete;
  ~RankResources();

  int rank, device;
  DeviceBuffer<float> vector;   ///< the vector this rank all-reduces, in place
  DeviceBuffer<float> staging;  ///< slots where the left neighbour's reduce-scatter pieces land
  /// Two streams, so that this rank's copy to the right and its add of what came from the left run at
  /// the same time. Non-blocking: ordered only by the events below, never by the default stream.
  cudaStream_t send = nullptr, reduce = nullptr;
  EventArray arrived;  ///< [message]: recorded on `send` when this rank's copy to the right is done
  EventArray reduced;  ///< [reduce-scatter message]: recorded on `reduce` when this rank's add is done
  EventArray own;      ///< start (default stream), sent (send stream), added (reduce stream)
};

/// What a rank sees of its right neighbour: where its messages go, and when a staging slot is free.
struct RightView {
  float* vector = nullptr;
  float* staging = nullptr;
  const cudaEvent_t* reduced = nullptr;
};

/// What a rank sees of its left neighbour: when a message from it has arrived.
struct LeftView {
  const cudaEvent_t* arrived = nullptr;
};

/// Start of an all-reduce: this rank's streams wait for its device's default stream; with
/// @p previous_last_reduce >= 0, its copies also wait until the right neighbour has added the
/// previous all-reduce's last piece (they are about to overwrite the staging slots).
void enqueue_begin(RankResources& me, const RightView& right, int previous_last_reduce);
/// Message @p m from this rank to its right neighbour.
void enqueue_send(const RingPlan& plan, RankResources& me, const RightView& right, const LeftView& left, int m);
/// Message @p m from the left neighbour: added into this rank's vector during the reduce-scatter.
void enqueue_receive(const RingPlan& plan, RankResources& me, const LeftView& left, int m);
/// End of an all-reduce: the default stream waits for everything that reads or writes this rank's vector.
void enqueue_end(const RingPlan& plan, RankResources& me, const LeftView& left);

}  // namespace pmpp::ch10::multi_gpu::detail
