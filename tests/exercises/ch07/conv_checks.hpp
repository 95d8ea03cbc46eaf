/// @file conv_checks.hpp
/// @brief The checks every chapter-7 exercise runs, written once for 1D, 2D and 3D convolutions. A test
/// file describes its exercise in a ConvUnderTest and picks the checks and the points.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exercise_test.hpp"
#include "feedback.hpp"
#include "repeating_array.hpp"

namespace ex_test {

/// A convolution exercise, seen from the tests.
struct ConvUnderTest {
  int dims;        ///< 1, 2 or 3: the radius applies to the first `dims` axes (x, then y, then z)
  int max_radius;  ///< the largest radius the exercise accepts
  /// Run the exercise on device arrays @p in and @p out of extents @p e, with the host filter @p f
  /// (each exercise passes it on its own way: a device copy, or an upload to constant memory).
  std::function<void(const float* in, const std::vector<float>& f, float* out, Extents e, int r)> launch;

  int radius_y(int r) const { return dims >= 2 ? r : 0; }
  int radius_z(int r) const { return dims >= 3 ? r : 0; }
  std::size_t taps(int r) const {
    return static_cast<std::size_t>(2 * r + 1) * (2 * radius_y(r) + 1) * (2 * radius_z(r) + 1);
  }
};

/// 1D shapes: n x 1 x 1 for each length.
inline std::vector<Extents> lengths(const std::vector<int>& ns) {
  std::vector<Extents> shapes;
  for (int n : ns) shapes.push_back({n, 1, 1});
  return shapes;
}

inline std::string describe(Extents e, int r) {
  return std::to_string(e.nx) + "x" + std::to_string(e.ny) + "x" + std::to_string(e.nz) + ", radius " +
         std::to_string(r);
}

/// Run @p conv with @p in copied into @p d_in and @p d_out poisoned (framed device arrays of in.size()
/// elements, which a check may reuse from run to run); CHECK that the input came back unchanged and
/// that the guard bands around the output were not written.
inline std::vector<float> run(const ConvUnderTest& conv, Framed& d_in, Framed& d_out, const std::vector<float>& in,
                              Extents e, const std::vector<float>& f, int r) {
  d_in.assign(in);
  d_out.poison();
  conv.launch(d_in.data(), f, d_out.data(), e, r);
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(d_out.guards_intact());
  CHECK(same_bits(d_in.to_host(), in));
  return d_out.to_host();
}

/// The same on framed device arrays of its own.
inline std::vector<float> run(const ConvUnderTest& conv, const std::vector<float>& in, Extents e,
                              const std::vector<float>& f, int r) {
  Framed d_in(in.size(), kNaN), d_out(in.size());
  return run(conv, d_in, d_out, in, e, f, r);
}

inline std::vector<double> reference(const ConvUnderTest& conv, const std::vector<float>& in, Extents e,
                                     const std::vector<float>& f, int r) {
  return convolution_reference(in, e, f, r, conv.radius_y(r), conv.radius_z(r));
}

/// Small integers (inputs in [-4, 4], taps in [-3, 3], random, so the filter is asymmetric): every
/// sum is exact in float, whatever the order, so the result must match bit for bit. Every shape,
/// every radius from 0 to the largest. Each shape's device arrays serve all its radii: hundreds of runs
/// on small arrays cost mostly their allocations (and, under the grader, the mapping of each new one
/// into the worker process), which on a GPU shared by several test processes took a grading case past
/// a 30-second limit.
inline void check_small_integers(const ConvUnderTest& conv, const std::vector<Extents>& shapes) {
  for (const Extents& e : shapes) {
    Framed d_in(e.count(), kNaN), d_out(e.count());
    for (int r = 0; r <= conv.max_radius; ++r) {
      INFO(describe(e, r));
      const auto in = pmpp::random_small_ints(e.count(), 1000 + e.count() + r, -4, 4);
      const auto f = pmpp::random_small_ints(conv.taps(r), 17 + r, -3, 3);
      const auto result =
          pmpp::compare(run(conv, d_in, d_out, in, e, f, r), reference(conv, in, e, f, r), pmpp::Tolerance::exact());
      INFO(result.summary());
      CHECK(result.ok());
    }
  }
}

/// Random floats in [-1, 1): within the rounding bound of a float sum of (taps) products.
inline void check_random_floats(const ConvUnderTest& conv, const std::vector<Extents>& shapes,
                                const std::vector<int>& radii) {
  for (int r : radii)
    for (const Extents& e : shapes) {
      INFO(describe(e, r));
      const auto in = pmpp::random_floats(e.count(), 5000 + e.count() + r);
      const auto f = pmpp::random_floats(conv.taps(r), 29 + r);
      const auto result = pmpp::compare(run(conv, in, e, f, r), reference(conv, in, e, f, r),
                                        convolution_tolerance(f, 1.0f));
      INFO(result.summary());
      CHECK(result.ok());
    }
}

/// A single 1 at @p hot among zeros, and a filter of distinct taps 1, 2, 3, ...: the output around
/// @p hot is the filter reversed along every axis, since out(p) = f[j] exactly where p - r + j = hot.
/// A flipped filter, swapped axes or a wrong stride put some tap in the wrong place. The expected
/// output is built from that rule, independently of the CPU reference.
inline void check_one_hot(const ConvUnderTest& conv, Extents e, Extents hot, int r) {
  INFO(describe(e, r) << ", one-hot at (" << hot.nx << ", " << hot.ny << ", " << hot.nz << ")");
  std::vector<float> in(e.count(), 0.0f);
  const auto at = [&e](int x, int y, int z) { return (static_cast<std::size_t>(z) * e.ny + y) * e.nx + x; };
  in[at(hot.nx, hot.ny, hot.nz)] = 1.0f;
  const int ry = conv.radius_y(r), rz = conv.radius_z(r);
  const int dx = 2 * r + 1, dy = 2 * ry + 1;
  const auto f = counting_filter(conv.taps(r));
  std::vector<float> want(e.count(), 0.0f);
  for (int k = 0; k <= 2 * rz; ++k)
    for (int j = 0; j <= 2 * ry; ++j)
      for (int i = 0; i <= 2 * r; ++i) {
        const int x = hot.nx + r - i, y = hot.ny + ry - j, z = hot.nz + rz - k;
        if (x >= 0 && x < e.nx && y >= 0 && y < e.ny && z >= 0 && z < e.nz)
          want[at(x, y, z)] = f[(static_cast<std::size_t>(k) * dy + j) * dx + i];
      }
  const auto result = pmpp::compare(run(conv, in, e, f, r), want, pmpp::Tolerance::exact());
  INFO(result.summary());
  CHECK(result.ok());
}

/// Several runs on the same input with a different filter (and radius) each time, then the first one
/// again: every result must be that filter's. Catches a filter left from an earlier run (constant
/// memory uploaded once, or only in part) and anything that accumulates across runs.
inline void check_new_filter_takes_effect(const ConvUnderTest& conv, Extents e, const std::vector<int>& radii) {
  const auto in = pmpp::random_small_ints(e.count(), 77, -4, 4);
  std::vector<int> sequence = radii;
  sequence.push_back(radii.front());
  for (std::size_t step = 0; step < sequence.size(); ++step) {
    const int r = sequence[step];
    INFO("run " << step + 1 << ": " << describe(e, r));
    const auto f = pmpp::random_small_ints(conv.taps(r), 300 + (step + 1 == sequence.size() ? 0 : step), -3, 3);
    const auto result = pmpp::compare(run(conv, in, e, f, r), reference(conv, in, e, f, r), pmpp::Tolerance::exact());
    INFO(result.summary());
    CHECK(result.ok());
  }
}

/// A 1D convolution with a 64-bit length, for check_1d_beyond_2_31.
using Conv1dLaunch64 = std::function<void(const float* x, const std::vector<float>& f, float* y, std::int64_t n, int r)>;

/// n = 2^31 + 1000 elements, as RepeatingArrays: about 100 MiB of GPU memory, where plain arrays
/// would take 17 GB. The input is zero but for a few spikes on both sides of 2^31 and at both ends, so
/// the expected output near each spike follows from the filter alone; every other output is zero, and
/// all of those land in the output's repeated block. A 32-bit index wraps negative past 2^31 and reads
/// or writes outside the arrays.
inline void check_1d_beyond_2_31(const Conv1dLaunch64& launch, int r) {
  const std::int64_t two31 = std::int64_t{1} << 31, n = two31 + 1000;
  const std::vector<std::pair<std::int64_t, float>> spikes{{0, 1},         {5, 2},         {two31 - 2, 3},
                                                           {two31 - 1, 4}, {two31, 5},     {two31 + 1, -6},
                                                           {n - 3, 7},     {n - 1, -8}};
  const std::vector<std::int64_t> starts{0, two31 - 64, n - 128};  // 128 outputs checked from each
  std::vector<RepeatingArray::Window> windows;
  for (std::int64_t start : starts) windows.push_back({static_cast<std::size_t>(start), 128});
  RepeatingArray d_x(static_cast<std::size_t>(n), windows), d_y(static_cast<std::size_t>(n), windows);
  d_x.zero();
  for (auto [index, value] : spikes) d_x.set(static_cast<std::size_t>(index), value);
  const auto f = pmpp::random_small_ints(2 * r + 1, 31, -3, 3);
  launch(d_x.data(), f, d_y.data(), n, r);
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(d_y.guards_intact());

  // y[i] = sum over the spikes s of value(s) * f[s - i + r], for the taps that reach a spike.
  for (std::int64_t start : starts) {
    INFO("outputs " << start << " to " << start + 127);
    std::vector<double> want(128, 0.0);
    for (std::int64_t i = start; i < start + 128; ++i)
      for (auto [s, value] : spikes) {
        const std::int64_t j = s - i + r;
        if (j >= 0 && j <= 2 * r) want[static_cast<std::size_t>(i - start)] += value * f[static_cast<std::size_t>(j)];
      }
    const auto result = pmpp::compare(d_y.range(static_cast<std::size_t>(start), 128), want, pmpp::Tolerance::exact());
    INFO(result.summary());
    CHECK(result.ok());
  }
  // Everywhere else: zeros out (an output left NaN, or a wrong value, stays in the repeated block), and
  // the zeros in unchanged.
  const auto all_zero = [](const std::vector<float>& block, bool any_sign) {
    for (float v : block)
      if (any_sign ? v != 0.0f : !same_bits(v, 0.0f)) return false;
    return !block.empty();
  };
  INFO("the outputs away from the spikes, and the input there");
  CHECK(all_zero(d_y.repeated_block(), true));
  CHECK(all_zero(d_x.repeated_block(), false));
}

// ---- Feedback (no points) ---------------------------------------------------------------------

/// A convolution's launch as a feedback case times it: the filter placed before every run, untimed
/// (uploaded to constant memory; nothing for the exercises that read it from @p d_f), then the call.
struct ConvLaunch {
  std::function<void(const std::vector<float>& f, int r)> place_filter;
  std::function<void(const float* in, const float* d_f, float* out, Extents e, int r)> call;
};

/// The exact output at (x, y, z), for one sampled point: the definition's sum over the filter.
inline double convolution_at(const ConvUnderTest& conv, const std::vector<float>& in, Extents e,
                             const std::vector<float>& f, int r, int x, int y, int z) {
  const int rx = r, ry = conv.radius_y(r), rz = conv.radius_z(r);
  double sum = 0;
  for (int k = -rz; k <= rz; ++k)
    for (int j = -ry; j <= ry; ++j)
      for (int i = -rx; i <= rx; ++i) {
        const int ix = x + i, iy = y + j, iz = z + k;
        if (ix < 0 || ix >= e.nx || iy < 0 || iy >= e.ny || iz < 0 || iz >= e.nz) continue;
        const std::size_t row = static_cast<std::size_t>(k + rz) * (2 * ry + 1) + (j + ry);
        const std::size_t tap = row * (2 * rx + 1) + (i + rx);
        sum += static_cast<double>(f[tap]) * in[(static_cast<std::size_t>(iz) * e.ny + iy) * e.nx + ix];
      }
  return sum;
}

/// The feedback case of a convolution exercise on extents @p e (input and output far beyond L2) and
/// radius @p r. Its floor: read the input once, write the output once, 2 operations per tap and
/// output. Small integers (inputs in [-4, 4], taps in [-3, 3]) make every output exact. Before every
/// run one input element changes; the check compares the outputs it reaches, and 64 others anywhere,
/// with the exact sums (a full CPU reference of every run would cost more than the case).
inline void give_conv_feedback(const ConvUnderTest& conv, const ConvLaunch& launch, const std::string& exercise,
                               const std::string& what, Extents e, int r,
                               std::vector<pmpp_grader::TextPrediction> text) {
  require_device_memory(2 * e.count() * sizeof(float));
  std::vector<float> in = pmpp::random_small_ints(e.count(), 5, -4, 4);
  const std::vector<float> f = pmpp::random_small_ints(conv.taps(r), 6, -3, 3);
  Framed d_in(in, kNaN), d_out(e.count()), d_f(f, kNaN);
  std::mt19937_64 random(17);
  std::size_t changed = 0;
  const auto prepare = [&] {
    changed = random() % e.count();
    in[changed] = in[changed] == 1.0f ? -1.0f : 1.0f;
    d_in.set(changed, in[changed]);
    d_out.poison();
    launch.place_filter(f, r);
  };
  const auto run = [&] { launch.call(d_in.data(), d_f.data(), d_out.data(), e, r); };
  const auto check = [&] {
    const auto at = [&](std::size_t index) {
      const int x = static_cast<int>(index % e.nx), y = static_cast<int>(index / e.nx % e.ny);
      const int z = static_cast<int>(index / e.nx / e.ny);
      return d_out.range(index, 1)[0] == convolution_at(conv, in, e, f, r, x, y, z);
    };
    bool right = true;
    for (int i = -r; i <= r; ++i) {  // the outputs the changed input reaches along x
      const long long index = static_cast<long long>(changed) + i;
      if (index >= 0 && index < static_cast<long long>(e.count())) right = right && at(static_cast<std::size_t>(index));
    }
    for (int i = 0; i < 64; ++i) right = right && at(random() % e.count());
    return right;
  };
  const double taps = static_cast<double>(conv.taps(r));
  const double bytes = static_cast<double>(e.count()) * sizeof(float);
  pmpp_grader::give_feedback({exercise, what + " " + describe(e, r), {bytes, bytes, 2 * taps * e.count()}, prepare,
                              run, check, std::move(text)});
}

}  // namespace ex_test
