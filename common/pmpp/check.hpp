/// @file check.hpp
/// @brief Compare a GPU result with the CPU reference. NaN never passes. Needs no CUDA.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "pmpp/words.hpp"

namespace pmpp {

/// |got - want| <= abs + rel * |want|. The absolute part covers results near zero, where a relative
/// bound alone would demand exactness; the relative part covers large results.
struct Tolerance {
  double abs = 0;
  double rel = 0;
  static constexpr Tolerance exact() { return {0, 0}; }
};

/// True when @p got is within @p tol of @p want. Written so that a NaN in @p got fails: every
/// comparison with NaN is false, so we test for "close" rather than for "too far" (the classic
/// `if (fabs(a - b) > tol) fail` lets NaN through). Infinities must match exactly.
inline bool within(double got, double want, Tolerance tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::fabs(got - want) <= tol.abs + tol.rel * std::fabs(want);
}

struct CheckResult {
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  double worst_error = 0;                 ///< largest |got - want| (NaN if a NaN was found)
  std::size_t worst_index = 0;
  std::vector<std::size_t> first_bad;     ///< up to 8 mismatching indices, in order
  std::vector<double> first_got, first_want;

  bool ok() const { return mismatches == 0 && checked > 0; }
  /// "PASS: 4096 values, worst |error| 3.1e-07 at 17" or "FAIL: 12 of 4096 values differ; first at ..."
  std::string summary() const {
    char line[160];
    if (checked == 0) return "FAIL: nothing was checked";
    if (ok()) {
      std::snprintf(line, sizeof line, ", worst |error| %.3g at index %zu", worst_error, worst_index);
      return "PASS: " + count_of(static_cast<long long>(checked), "value") + line;
    }
    std::snprintf(line, sizeof line, "; worst |error| %.3g at index %zu;", worst_error, worst_index);
    std::string text = "FAIL: " + std::to_string(mismatches) + " of " + count_of(static_cast<long long>(checked), "value") +
                       (mismatches == 1 ? " differs" : " differ") + line;
    for (std::size_t i = 0; i < first_bad.size(); ++i) {
      std::snprintf(line, sizeof line, " [%zu] got %.9g want %.9g", first_bad[i], first_got[i], first_want[i]);
      text += line;
    }
    return text;
  }
};

/// Compare element by element. Sizes must match (a size mismatch is itself a failure).
template <class Got, class Want>
CheckResult compare(const std::vector<Got>& got, const std::vector<Want>& want, Tolerance tol) {
  CheckResult r;
  if (got.size() != want.size()) {
    r.checked = want.size();
    r.mismatches = want.size() + 1;
    return r;
  }
  r.checked = want.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    const double err = std::isnan(g) ? NAN : std::fabs(g - w);
    if (std::isnan(err) ? !std::isnan(r.worst_error) : err > r.worst_error) {
      r.worst_error = err;
      r.worst_index = i;
    }
    if (!within(g, w, tol)) {
      if (r.first_bad.size() < 8) {
        r.first_bad.push_back(i);
        r.first_got.push_back(g);
        r.first_want.push_back(w);
      }
      ++r.mismatches;
    }
  }
  return r;
}

}  // namespace pmpp
