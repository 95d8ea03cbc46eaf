// The fused ring on the CPU, in any order its flags allow: the model the tests use to show that the
// flags the kernel waits on (fused_ring.cu) are enough for the sum to come out right, whatever the
// GPUs' speeds, and that the credits (the `freed` flags) are needed once a staging slot is reused.
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
// One block's work on one piece of one rank: per step a load (its own piece, and what the left
// neighbour pushed into its staging) and a store (into the right neighbour's staging or vector),
// then the wait for the left neighbour's last push.
struct Worker {
  enum Phase { kBegin, kLoad, kStore, kWaitForLast, kFinished };
  int rank = 0, piece = 0;
  int call = 1;  // all-reduces are numbered from 1, as the kernel's flags count them
  int step = 0;
  Phase phase = kBegin;
  std::vector<float> sum;  // what the load computed, for the store to write
};

class Model {
 public:
  Model(const RingPlan& plan, std::vector<std::vector<float>>& vectors, int calls, bool credits)
      : plan_(plan), vectors_(vectors), calls_(calls), credits_(credits),
        staging_(static_cast<std::size_t>(plan.ranks),
                 std::vector<float>(static_cast<std::size_t>(plan.slots) * plan.segment_elements)),
        ready_(static_cast<std::size_t>(plan.ranks), std::vector<Flag>(static_cast<std::size_t>(plan.chunks), 0)),
        freed_(ready_), finished_calls_(ready_.size(), std::vector<int>(static_cast<std::size_t>(plan.chunks), 0)) {
    for (int r = 0; r < plan.ranks; ++r)
      for (int c = 0; c < plan.chunks; ++c) {
        Worker w;
        w.rank = r;
        w.piece = c;
        workers_.push_back(w);
      }
  }

  void run(std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::size_t> free;
    for (;;) {
      free.clear();
      bool all_finished = true;
      for (std::size_t w = 0; w < workers_.size(); ++w) {
        all_finished = all_finished && workers_[w].phase == Worker::kFinished;
        if (may_go(workers_[w])) free.push_back(w);
      }
      if (all_finished) return;
      if (free.empty()) throw std::logic_error("the fused ring's model found no worker free to go: a deadlock");
      go(workers_[free[std::uniform_int_distribution<std::size_t>(0, free.size() - 1)(random)]]);
    }
  }

 private:
  int left(int r) const { return (r + plan_.ranks - 1) % plan_.ranks; }
  int right(int r) const { return (r + 1) % plan_.ranks; }
  Flag& ready(int r, int c) { return ready_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)]; }
  Flag& freed(int r, int c) { return freed_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)]; }
  bool pushes_to_staging(int step) const { return step < plan_.ranks - 1; }
  bool reads_staging(int step) const { return step > 0 && step <= plan_.ranks - 1; }
  Range piece(const Worker& w) const { return plan_.piece(plan_.send_segment(w.rank, w.step), w.piece); }
  // Where piece `p` of the segment being pushed sits in a rank's staging slot `slot`.
  std::size_t in_slot(int slot, const Worker& w, const Range& p) const {
    return static_cast<std::size_t>(slot) * plan_.segment_elements +
           (p.begin - plan_.segment(plan_.send_segment(w.rank, w.step)).begin);
  }

  // A rank's kernel for call E begins once its kernel for call E-1 has ended on every block.
  bool previous_call_ended(const Worker& w) const {
    for (int finished : finished_calls_[static_cast<std::size_t>(w.rank)])
      if (finished < w.call - 1) return false;
    return true;
  }

  // Where the kernel waits on a flag; everything else may go at any time.
  bool may_go(const Worker& w) {
    switch (w.phase) {
      case Worker::kBegin: return previous_call_ended(w);
      case Worker::kLoad: {
        const bool arrived = w.step == 0 || ready(w.rank, w.piece) >= progress_flag(w.call, w.step);
        const bool slot_free = !credits_ || !pushes_to_staging(w.step) || w.step < plan_.slots ||
                               freed(w.rank, w.piece) >= progress_flag(w.call, w.step - plan_.slots + 1);
        return arrived && slot_free;
      }
      case Worker::kWaitForLast: return ready(w.rank, w.piece) >= progress_flag(w.call, plan_.steps());
      case Worker::kFinished: return false;
      default: return true;
    }
  }

  void go(Worker& w) {
    switch (w.phase) {
      case Worker::kBegin:
        w.step = 0;
        w.phase = Worker::kLoad;
        return;
      case Worker::kLoad: {  // own piece, plus what the left neighbour pushed at step - 1
        const Range p = piece(w);
        const auto& own = vectors_[static_cast<std::size_t>(w.rank)];
        w.sum.assign(own.begin() + static_cast<std::ptrdiff_t>(p.begin),
                     own.begin() + static_cast<std::ptrdiff_t>(p.end));
        if (reads_staging(w.step)) {
          const auto& staged = staging_[static_cast<std::size_t>(w.rank)];
          const std::size_t at = in_slot(plan_.push_slot(w.step - 1), w, p);
          for (std::size_t i = 0; i < p.size(); ++i) w.sum[i] += staged[at + i];
        }
        w.phase = Worker::kStore;
        return;
      }
      case Worker::kStore: {
        const Range p = piece(w);
        const int to = right(w.rank);
        if (pushes_to_staging(w.step)) {
          auto& staged = staging_[static_cast<std::size_t>(to)];
          const std::size_t at = in_slot(plan_.push_slot(w.step), w, p);
          for (std::size_t i = 0; i < p.size(); ++i) staged[at + i] = w.sum[i];
        } else {
          for (std::size_t i = 0; i < p.size(); ++i) {
            vectors_[static_cast<std::size_t>(to)][p.begin + i] = w.sum[i];
            if (w.step == plan_.ranks - 1) vectors_[static_cast<std::size_t>(w.rank)][p.begin + i] = w.sum[i];
          }
        }
        ready(to, w.piece) = progress_flag(w.call, w.step + 1);
        if (reads_staging(w.step)) freed(left(w.rank), w.piece) = progress_flag(w.call, w.step);
        w.phase = ++w.step < plan_.steps() ? Worker::kLoad : Worker::kWaitForLast;
        return;
      }
      case Worker::kWaitForLast:  // the left neighbour's last push has landed: this call is over here
        finished_calls_[static_cast<std::size_t>(w.rank)][static_cast<std::size_t>(w.piece)] = w.call;
        w.phase = w.call < calls_ ? Worker::kBegin : Worker::kFinished;
        ++w.call;
        return;
      case Worker::kFinished:
        return;
    }
  }

  const RingPlan& plan_;
  std::vector<std::vector<float>>& vectors_;
  int calls_;
  bool credits_;
  std::vector<std::vector<float>> staging_;       // [rank]: slots of a segment each, in that rank's memory
  std::vector<std::vector<Flag>> ready_, freed_;  // [rank][piece], in that rank's memory
  std::vector<std::vector<int>> finished_calls_;  // [rank][piece]: the last call that piece's block ended
  std::vector<Worker> workers_;
};
}  // namespace

void simulate_fused_ring(const RingPlan& plan, std::vector<std::vector<float>>& vectors, std::uint64_t seed, int calls,
                         bool credits) {
  if (static_cast<int>(vectors.size()) != plan.ranks)
    throw std::invalid_argument("simulate_fused_ring: one vector per rank");
  for (const auto& v : vectors)
    if (v.size() < plan.n) throw std::invalid_argument("simulate_fused_ring: a vector is shorter than n");
  if (plan.steps() == 0 || plan.chunks == 0 || calls < 1) return;
  if (plan.slots < 1) throw std::invalid_argument("simulate_fused_ring: the plan has no staging slots");
  Model(plan, vectors, calls, credits).run(seed);
}

}  // namespace pmpp::ch10::multi_gpu
