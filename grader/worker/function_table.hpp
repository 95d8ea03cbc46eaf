/// @file function_table.hpp
/// @brief The worker's side of a remote function: each argument is decoded the way its parameter's
/// type asks for (a pointer: null, device memory, a host copy or a bare address; a number: exactly
/// that kind and size), then the code under test is called with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "driver_api.hpp"
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

/// The trusted process's device allocations, mapped in this process. Each arrives once, as file
/// descriptors on kMemoryFd (see wire.hpp), before the first request that uses it, and stays mapped
/// until a request says the test freed it: a test passes the same buffers call after call, and mapping
/// a gigabyte anew for every call would cost more than the call.
class Mappings {
 public:
  Mappings() = default;
  Mappings(const Mappings&) = delete;
  Mappings& operator=(const Mappings&) = delete;
  ~Mappings();
  /// Unmap allocation @p number (the test freed it); unknown numbers are ignored.
  void release(std::uint64_t number);
  /// Where allocation @p number of device @p device is mapped here: mapped now, from its descriptor,
  /// if this is its first use.
  void* open(std::uint64_t number, int device);

 private:
  struct Mapping {
    std::uintptr_t base;
    std::size_t bytes;
    std::vector<Piece> layout;
  };
  /// The pieces of an allocation received so far, their descriptors not mapped yet.
  struct Received {
    HandleMessage first;  // the allocation's size and number of pieces, as its first piece said
    std::vector<std::pair<int, HandleMessage>> pieces;
  };
  /// Take what waits on kMemoryFd until allocation @p number has all its pieces.
  void receive(std::uint64_t number);
  std::map<std::uint64_t, Mapping> mapped_;
  std::map<std::uint64_t, Received> received_;
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
