// The fused ring on the CPU, in any order its flags allow: the model the tests use to show that the
// flags the kernel waits on (fused_ring.cu) are enough for the sum to come out right, whatever the
// GPUs' speeds, and that the last handshake is needed.
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"

namespace pmpp::ch10::multi_gpu {

namespace {
// One block's work on one piece of one rank: begin, then a load and a store per step, then the end.
struct Worker {
  enum Phase { kBegin, kLoad, kStore, kEnd, kWaitForReader, kFinished };
  int rank = 0, piece = 0;
  int call = 1;  // all-reduces are numbered from 1, as the kernel's flags count them
  int step = 0;
  Phase phase = kBegin;
  std::vector<float> theirs, mine;  // what the load read, for the store to write
};

class Model {
 public:
  Model(const RingPlan& plan, std::vector<std::vector<float>>& vectors, int calls, bool end_handshake)
      : plan_(plan), vectors_(vectors), calls_(calls), end_handshake_(end_handshake),
        ready_(static_cast<std::size_t>(plan.ranks), std::vector<Flag>(static_cast<std::size_t>(plan.chunks), 0)),
        done_(ready_), finished_calls_(ready_.size(), std::vector<int>(static_cast<std::size_t>(plan.chunks), 0)) {
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
  Flag& done(int r, int c) { return done_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)]; }

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
      case Worker::kLoad: return ready(w.rank, w.piece) >= progress_flag(w.call, w.step);
      case Worker::kWaitForReader: return done(w.rank, w.piece) >= progress_flag(w.call, plan_.steps());
      case Worker::kFinished: return false;
      default: return true;
    }
  }

  void go(Worker& w) {
    switch (w.phase) {
      case Worker::kBegin:  // the inputs are final: the right neighbour may read them
        ready(right(w.rank), w.piece) = progress_flag(w.call, 0);
        w.step = 0;
        w.phase = Worker::kLoad;
        return;
      case Worker::kLoad: {
        const Range p = plan_.piece(plan_.receive_segment(w.rank, w.step), w.piece);
        const auto& from = vectors_[static_cast<std::size_t>(left(w.rank))];
        const auto& own = vectors_[static_cast<std::size_t>(w.rank)];
        const auto begin = static_cast<std::ptrdiff_t>(p.begin), end = static_cast<std::ptrdiff_t>(p.end);
        w.theirs.assign(from.begin() + begin, from.begin() + end);
        w.mine.assign(own.begin() + begin, own.begin() + end);
        w.phase = Worker::kStore;
        return;
      }
      case Worker::kStore: {
        const Range p = plan_.piece(plan_.receive_segment(w.rank, w.step), w.piece);
        auto& own = vectors_[static_cast<std::size_t>(w.rank)];
        for (std::size_t i = 0; i < p.size(); ++i)
          own[p.begin + i] = plan_.reduces(w.step) ? w.mine[i] + w.theirs[i] : w.theirs[i];
        ready(right(w.rank), w.piece) = progress_flag(w.call, w.step + 1);
        w.phase = ++w.step < plan_.steps() ? Worker::kLoad : Worker::kEnd;
        return;
      }
      case Worker::kEnd:  // this rank no longer reads its left neighbour's vector
        done(left(w.rank), w.piece) = progress_flag(w.call, plan_.steps());
        if (end_handshake_) {
          w.phase = Worker::kWaitForReader;
          return;
        }
        finish_call(w);
        return;
      case Worker::kWaitForReader:
        finish_call(w);
        return;
      case Worker::kFinished:
        return;
    }
  }

  void finish_call(Worker& w) {
    finished_calls_[static_cast<std::size_t>(w.rank)][static_cast<std::size_t>(w.piece)] = w.call;
    w.phase = w.call < calls_ ? Worker::kBegin : Worker::kFinished;
    ++w.call;
  }

  const RingPlan& plan_;
  std::vector<std::vector<float>>& vectors_;
  int calls_;
  bool end_handshake_;
  std::vector<std::vector<Flag>> ready_, done_;  // [rank][piece], in that rank's memory
  std::vector<std::vector<int>> finished_calls_;  // [rank][piece]: the last call that piece's block ended
  std::vector<Worker> workers_;
};
}  // namespace

void simulate_fused_ring(const RingPlan& plan, std::vector<std::vector<float>>& vectors, std::uint64_t seed, int calls,
                         bool end_handshake) {
  if (static_cast<int>(vectors.size()) != plan.ranks)
    throw std::invalid_argument("simulate_fused_ring: one vector per rank");
  for (const auto& v : vectors)
    if (v.size() < plan.n) throw std::invalid_argument("simulate_fused_ring: a vector is shorter than n");
  if (plan.steps() == 0 || plan.chunks == 0 || calls < 1) return;
  Model(plan, vectors, calls, end_handshake).run(seed);
}

}  // namespace pmpp::ch10::multi_gpu
