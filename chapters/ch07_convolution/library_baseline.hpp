/// @file library_baseline.hpp
/// @brief The libraries the side-by-side program measures the stages against (cuDNN, NPP), as rows of
/// one table, so that the program checks and times each the same way. Plain C++.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pmpp::ch07 {

/// One library's 2D convolution, set up once for one problem (the chapter's definition: unflipped
/// filter, zero ghost cells, output the size of the input). All pointers are device pointers.
class LibraryConvolution {
 public:
  virtual ~LibraryConvolution() = default;
  /// What the library needs done to an input and a filter before it can run, and a caller who keeps
  /// data in the library's layout does once (NPP: the zero-bordered copy, the reversed filter). Not
  /// timed. The default does nothing.
  virtual void prepare(const float* in, const float* filter) {
    (void)in;
    (void)filter;
  }
  /// Enqueue out = in (*) filter on the default stream: the call that is timed. prepare() must have
  /// been called with the same @p in and @p filter. A library whose result lands in a layout of its
  /// own leaves @p out to collect().
  virtual void run(const float* in, const float* filter, float* out) = 0;
  /// After run(): copy a result that run() left in the library's own layout into @p out (NPP: the
  /// image's part of a bordered output). Not timed. The default does nothing.
  virtual void collect(float* out) { (void)out; }
  /// One line on how it ran: version, algorithm, workspace, arithmetic (after the first run()).
  virtual std::string details() const = 0;
};

/// One row of the library table.
struct LibraryBaseline {
  const char* name;  ///< "cuDNN": the row's name in the results
  bool (*available)();
  /// The library's version, or why this build has none (one line).
  std::string (*description)();
  /// Set up for one problem; throws std::runtime_error if the library refuses it.
  std::unique_ptr<LibraryConvolution> (*make)(int width, int height, int radius);
};

/// cuDNN, then NPP.
const std::vector<LibraryBaseline>& library_baselines();

}  // namespace pmpp::ch07
