/// @file remote_function.hpp
/// @brief One declaration of a function that runs in the worker, read two ways.
///
///     PMPP_REMOTE_FUNCTION(pmpp::ex10::max_reduction, (const float* in, std::size_t n, float* result),
///                          (device(in), n, device(result)))
///
/// names the function (declared in the exercise's header), repeats its parameters, and says how each
/// argument crosses to the worker: device(p) for a pointer the function uses on the GPU, host(p, count)
/// for a host array it reads, and numbers as they are. A calls file (grader/calls/) is compiled
/// twice from these lines:
/// - for the trusted test process, each line *defines* the function as a proxy that ships the call
///   to the worker (so the tests link no code under test at all);
/// - for the worker (PMPP_GRADER_WORKER defined), each line *registers* the real function, compiled
///   from the code under test, under the same name.
/// The compiler checks both readings against the header, so the two sides cannot disagree.
#pragma once

#define PMPP_GRADER_UNPAREN(...) __VA_ARGS__
#define PMPP_GRADER_CONCAT_(a, b) a##b
#define PMPP_GRADER_CONCAT(a, b) PMPP_GRADER_CONCAT_(a, b)

#if defined(PMPP_GRADER_WORKER)

#include "function_table.hpp"

#define PMPP_REMOTE_FUNCTION(name, params, args) \
  static const ::pmpp_grader::Registration PMPP_GRADER_CONCAT(pmpp_grader_registration_, __LINE__){#name, &name};

#else

#include "remote_call.hpp"

#define PMPP_REMOTE_FUNCTION(name, params, args)          \
  void name params {                                      \
    using namespace ::pmpp_grader::arguments;             \
    ::pmpp_grader::call(#name, PMPP_GRADER_UNPAREN args); \
  }

#endif
