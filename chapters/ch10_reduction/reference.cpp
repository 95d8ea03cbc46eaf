// CPU reference for chapter 10: the sequential loop of Fig 10.2, in double, plus the inputs that make
// a sharp check possible and the error bound for the inputs that do not.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>

#include "ch10_reduction/reduction.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/parallel.hpp"
#include "pmpp/random.hpp"

namespace pmpp::ch10 {

const char* op_name(Op op) {
  switch (op) {
    case Op::sum: return "sum";
    case Op::max: return "max";
    case Op::min: return "min";
    case Op::product: return "product";
  }
  return "?";
}

std::vector<std::string> op_names() { return {"sum", "max", "min", "product"}; }

Op parse_op(std::string_view name) {
  for (Op op : {Op::sum, Op::max, Op::min, Op::product})
    if (name == op_name(op)) return op;
  throw UsageError("unknown operator '" + std::string(name) + "': use sum, max, min or product");
}

//! [identity]
double identity(Op op) {
  switch (op) {
    case Op::sum: return 0.0;
    case Op::max: return -std::numeric_limits<double>::infinity();  // nothing is smaller
    case Op::min: return std::numeric_limits<double>::infinity();
    case Op::product: return 1.0;
  }
  return 0.0;
}
//! [identity]

double apply(Op op, double a, double b) {
  switch (op) {
    case Op::sum: return a + b;
    case Op::max: return std::fmax(a, b);
    case Op::min: return std::fmin(a, b);
    case Op::product: return a * b;
  }
  return 0.0;
}

double reduce_reference(const std::vector<float>& x, Op op) {
  // Each core runs Fig 10.2's loop over its chunk, from the identity; the chunks' results are then
  // combined in chunk order. In double, a sum of up to 2^33 floats is off by far less than one float ulp.
  std::mutex lock;
  struct Chunk {
    std::int64_t begin;
    double value;
  };
  std::vector<Chunk> chunks;
  parallel_for(static_cast<std::int64_t>(x.size()), [&](std::int64_t begin, std::int64_t end) {
    double acc = identity(op);
    for (std::int64_t i = begin; i < end; ++i) acc = apply(op, acc, x[static_cast<std::size_t>(i)]);
    const std::lock_guard<std::mutex> guard(lock);
    chunks.push_back({begin, acc});
  });
  std::sort(chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) { return a.begin < b.begin; });
  double result = identity(op);
  for (const Chunk& c : chunks) result = apply(op, result, c.value);
  return result;
}

double sum_of_magnitudes(const std::vector<float>& x) {
  double total = 0;
  std::mutex lock;
  parallel_for(static_cast<std::int64_t>(x.size()), [&](std::int64_t begin, std::int64_t end) {
    double s = 0;
    for (std::int64_t i = begin; i < end; ++i) s += std::fabs(static_cast<double>(x[static_cast<std::size_t>(i)]));
    const std::lock_guard<std::mutex> guard(lock);
    total += s;
  });
  return total;
}

bool sum_is_exact_in_float(const std::vector<float>& x) {
  for (float v : x)
    if (v != std::nearbyint(v)) return false;
  return sum_of_magnitudes(x) <= 16777216.0;  // 2^24: every integer up to here is a float
}

double sum_error_bound(std::size_t depth, double sum_abs) {
  const double ku = static_cast<double>(depth) * std::ldexp(1.0, -24);
  if (ku >= 1) return std::numeric_limits<double>::infinity();  // the bound says nothing
  return ku / (1 - ku) * sum_abs;
}

namespace {
constexpr std::size_t kFourRange = std::size_t{1} << 21;  // up to here [-4, 4]: sum|x| <= 4n <= 2^23
constexpr std::size_t kOneRange = std::size_t{1} << 24;   // up to here [-1, 1]: sum|x| <= n <= 2^24

// Each value is +1 or -1 with probability 2^23 / n, else 0: about 2^23 non-zeros whatever n is, so
// sum|x| stays far below 2^24 and any order of additions is exact (sum_is_exact_in_float checks it).
std::vector<float> sparse_signs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  const double p = std::ldexp(1.0, 23) / static_cast<double>(n);  // n > 2^24 here, so p < 1/2
  const std::uint64_t threshold = static_cast<std::uint64_t>(p * 18446744073709551615.0);
  std::vector<float> v(n, 0.0f);
  for (auto& x : v) {
    const std::uint64_t r = engine();
    if (r < threshold) x = (r & 1) ? 1.0f : -1.0f;
  }
  return v;
}

// +-2^e with e in {-1, 0, 1}: every product is a power of two, exact in float unless it leaves float's
// range. e = +-1 is rare enough (at most 32 of each expected) that no partial product comes near 2^127.
std::vector<float> signed_powers_of_two(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  const double rare = std::min(1.0 / 8.0, 32.0 / static_cast<double>(std::max<std::size_t>(n, 1)));
  const std::uint64_t threshold = static_cast<std::uint64_t>(rare * 18446744073709551615.0);
  std::vector<float> v(n);
  for (auto& x : v) {
    const std::uint64_t r = engine();
    const float sign = (r >> 63) ? -1.0f : 1.0f;
    const std::uint64_t pick = engine();
    x = sign * (pick < threshold ? 2.0f : pick < 2 * threshold ? 0.5f : 1.0f);
  }
  return v;
}
}  // namespace

std::vector<float> make_inputs(std::size_t n, Op op, InputKind kind, std::uint64_t seed) {
  switch (op) {
    case Op::sum:
      if (kind == InputKind::floats) return random_floats(n, seed);
      if (n <= kFourRange) return random_small_ints(n, seed, -4, 4);
      if (n <= kOneRange) return random_small_ints(n, seed, -1, 1);
      return sparse_signs(n, seed);
    case Op::max:  // all negative: a kernel that starts from 0 instead of -infinity returns 0
      return random_floats(n, seed, -3.0f, -1.0f);
    case Op::min:  // all positive, for the same reason
      return random_floats(n, seed, 1.0f, 3.0f);
    case Op::product:
      return signed_powers_of_two(n, seed);
  }
  return {};
}

std::string describe_inputs(std::size_t n, Op op, InputKind kind) {
  switch (op) {
    case Op::sum:
      if (kind == InputKind::floats)
        return "random floats in [-1, 1); tolerance gamma_k * sum|x|, k = the stage's longest chain of roundings";
      if (n <= kFourRange)
        return "random integers in [-4, 4]: sum|x| <= 2^23, so every partial sum in any order is exact (bit-exact check)";
      if (n <= kOneRange)
        return "random integers in [-1, 1]: sum|x| <= 2^24, so every partial sum in any order is exact (bit-exact check)";
      return "sparse random +-1 (about 2^23 non-zeros): sum|x| < 2^24, so any order of additions is exact (bit-exact check)";
    case Op::max:
      return "random floats in [-3, -1): all negative, so a wrong identity (0 instead of -inf) shows (exact check)";
    case Op::min:
      return "random floats in [1, 3): all positive, so a wrong identity (0 instead of +inf) shows (exact check)";
    case Op::product:
      return "random +-1, with rare +-2 and +-0.5: every partial product is a power of two (exact check)";
  }
  return "";
}

}  // namespace pmpp::ch10
