/// @file function_table.hpp
/// @brief The worker's side of a remote function: each argument is decoded the way its parameter's
/// type asks for (a pointer: null, device memory, a host copy or a bare address; a number: exactly
/// that kind and size), then the code under test is called with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "wire.hpp"

namespace pmpp_grader {

/// A request the worker cannot make sense of: a grader bug, never the student's doing.
class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Opening the trusted process's device memory failed (CUDA's error code and text).
class MappingFailed : public std::runtime_error {
 public:
  MappingFailed(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

/// The trusted process's device allocations, opened in this process through their IPC handles. A
/// test passes the same buffers call after call, so they stay open (at most kMaxOpen of them): opened
/// and closed again for every call, a gigabyte input made a 1.1 ms call take 10 ms on an H100.
/// A mapping can outlive its allocation: once a call is over the trusted process may free it and
/// allocate the same memory again, under a new handle that will not open while the old mapping stands
/// (cudaErrorAlreadyMapped). Then every mapping the current call has not used is closed, and the open
/// is tried once more.
class Mappings {
 public:
  static constexpr std::size_t kMaxOpen = 64;
  Mappings() = default;
  Mappings(const Mappings&) = delete;
  Mappings& operator=(const Mappings&) = delete;
  ~Mappings();
  /// A new call begins: what it opens or reuses from now on is in use until the next one begins.
  void start_call() { ++call_; }
  /// The base address of the allocation with IPC handle @p handle (kIpcHandleBytes) on @p device.
  void* open(const char* handle, int device);

 private:
  void close_unused();
  struct Open {
    std::string handle;
    void* base;
    std::uint64_t call;  // the last call that used it
  };
  std::vector<Open> open_;  // least recently used first
  std::uint64_t call_ = 0;
};

/// The arguments of one call, decoded in order. Host copies live as long as this object.
class Arguments {
 public:
  Arguments(FrameReader& frame, std::uint32_t count, Mappings& mappings)
      : frame_(frame), left_(count), mappings_(mappings) {}

  template <class P>
  P next() {
    if constexpr (std::is_pointer_v<P>) {
      using Pointee = std::remove_pointer_t<P>;
      return static_cast<P>(const_cast<void*>(pointer(std::is_const_v<Pointee>)));
    } else {
      P value{};
      scalar(&value, sizeof value, scalar_kind<P>());
      return value;
    }
  }

 private:
  const void* pointer(bool read_only);
  void scalar(void* out, std::size_t size, ScalarKind kind);
  Tag next_tag();

  FrameReader& frame_;
  std::uint32_t left_;
  Mappings& mappings_;
  std::vector<std::unique_ptr<char[]>> host_copies_;
};

/// One function the worker can call: its name, its arity, and how to bind decoded arguments to it.
struct RemoteFunction {
  std::string name;
  std::size_t arity;
  std::function<std::function<void()>(Arguments&)> bind;
};

/// Every function registered in this worker.
std::vector<RemoteFunction>& remote_functions();

/// Registers @p function under @p name (a static object per function, see remote_function.hpp).
struct Registration {
  template <class... P>
  Registration(const char* name, void (*function)(P...)) {
    remote_functions().push_back({name, sizeof...(P), [function](Arguments& args) {
                                    // Braced initialization evaluates left to right: the arguments'
                                    // order on the wire.
                                    std::tuple<P...> values{args.next<P>()...};
                                    return std::function<void()>([function, values] { std::apply(function, values); });
                                  }});
  }
};

}  // namespace pmpp_grader
