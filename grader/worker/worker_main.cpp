// The worker's main(). A worker is the code under test (a student's .cu, or a solution) linked with
// this file and the exercise's remote functions (grader/calls/). It holds no tests, no
// references and no verdicts: it answers the trusted test process's requests, one at a time, on two
// pipes: decode the arguments, call the function, synchronize the device, reply how it ended.
#include <cuda_runtime_api.h>
#include <cxxabi.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>

#include "frame_io.hpp"
#include "function_table.hpp"
#include "pmpp/cuda_check.hpp"
#include "pmpp/device_info.hpp"
#include "pmpp/empty_launch.hpp"

namespace {

using namespace pmpp_grader;

std::string reply(Status status, const std::string& type, const std::string& message, int code) {
  FrameWriter out;
  out.put(static_cast<std::uint8_t>(status));
  out.put_string(type.substr(0, kMaxText));
  out.put_string(message.substr(0, kMaxText));
  out.put<std::int32_t>(code);
  return out.take();
}

std::string type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && name ? name.get() : type.name();
}

/// Call @p function; an exception is reported by the standard type it is (or derives from), so the
/// trusted side can throw the same type where the test expects it.
std::string run(const std::function<void()>& function) {
  try {
    function();
  } catch (const pmpp::CudaError& e) {
    return reply(Status::threw, "pmpp::CudaError", e.what(), e.code());
  } catch (const std::invalid_argument& e) {
    return reply(Status::threw, "std::invalid_argument", e.what(), 0);
  } catch (const std::domain_error& e) {
    return reply(Status::threw, "std::domain_error", e.what(), 0);
  } catch (const std::length_error& e) {
    return reply(Status::threw, "std::length_error", e.what(), 0);
  } catch (const std::out_of_range& e) {
    return reply(Status::threw, "std::out_of_range", e.what(), 0);
  } catch (const std::logic_error& e) {
    return reply(Status::threw, "std::logic_error", e.what(), 0);
  } catch (const std::range_error& e) {
    return reply(Status::threw, "std::range_error", e.what(), 0);
  } catch (const std::overflow_error& e) {
    return reply(Status::threw, "std::overflow_error", e.what(), 0);
  } catch (const std::underflow_error& e) {
    return reply(Status::threw, "std::underflow_error", e.what(), 0);
  } catch (const std::runtime_error& e) {
    return reply(Status::threw, "std::runtime_error", e.what(), 0);
  } catch (const std::bad_alloc& e) {
    return reply(Status::threw, "std::bad_alloc", e.what(), 0);
  } catch (const std::exception& e) {
    return reply(Status::threw, type_name(typeid(e)), e.what(), 0);
  } catch (...) {
    return reply(Status::threw, "", "an exception that is not a std::exception", 0);
  }
  // The launchers only enqueue: the results are ready, and kernel faults show, after a synchronize.
  // Without a GPU nothing could have been enqueued, so "no device" is no error here.
  const cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess || status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver)
    return reply(Status::returned, "", "", 0);
  return reply(Status::cuda_error, "", std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) +
                                           ") when synchronizing after the call", status);
}

std::string answer(const std::string& request, Mappings& mappings) {
  FrameReader frame(request);
  std::unique_ptr<Arguments> arguments;  // owns the host copies until the call is over
  std::function<void()> bound;
  try {
    const auto released = frame.get<std::uint32_t>();
    if (released > kMaxReleased) throw BadRequest("too many released allocations");
    for (std::uint32_t i = 0; i < released; ++i) mappings.release(frame.get<std::uint64_t>());
    const std::string name = frame.get_string(256);
    const auto count = frame.get<std::uint32_t>();
    // The empty call launches a kernel that does nothing: it pays what a launch pays (the GPU turning
    // to this process's context included), and no work.
    if (name == kEmptyCall && count == 0 && frame.at_end())
      return run([] {
        static const bool gpu = pmpp::gpu_available();
        if (gpu) pmpp::launch_empty_kernel();
      });
    const RemoteFunction* function = nullptr;
    for (const RemoteFunction& f : remote_functions())
      if (f.name == name) function = &f;
    if (function == nullptr) throw BadRequest("this worker has no function " + name);
    if (count != function->arity) throw BadRequest(name + " takes " + std::to_string(function->arity) + " arguments");
    arguments = std::make_unique<Arguments>(frame, count, mappings);
    bound = function->bind(*arguments);
    if (!frame.at_end()) throw BadRequest("the request has bytes after its last argument");
  } catch (const MappingFailed& e) {
    return reply(Status::cuda_error, "", e.what(), e.code());
  } catch (const std::exception& e) {
    return reply(Status::bad_request, "", e.what(), 0);
  }
  return run(bound);
}

}  // namespace

int main() {
  std::signal(SIGPIPE, SIG_IGN);  // the trusted side gone: a failed write, then a quiet exit
  struct stat requests_pipe {}, replies_pipe {};
  if (fstat(kRequestFd, &requests_pipe) != 0 || fstat(kReplyFd, &replies_pipe) != 0) {
    std::fprintf(stderr, "This program runs code under test for the grader's tests, which start it; "
                         "it is not run by hand.\n");
    return 2;
  }
  if (!write_frame(kReplyFd, kHandshake)) return 1;
  // Create the CUDA context while the trusted side prepares the first call (without a GPU this fails
  // at once, and harmlessly).
  std::thread warm_up([] { cudaFree(nullptr); });
  Mappings mappings;
  std::string request;
  bool answered = true;
  while (answered && !read_frame(kRequestFd, request)) {  // until the trusted side closes the pipe
    // The first call waits for the context. Code under test that ends the process (exit) runs the
    // CUDA runtime's teardown; while the warm-up thread was still inside the runtime, that teardown
    // crashed the worker (SIGSEGV) and hid how it ended. A call needs the context anyway.
    if (warm_up.joinable()) warm_up.join();
    answered = write_frame(kReplyFd, answer(request, mappings));
  }
  if (warm_up.joinable()) warm_up.join();
  return answered ? 0 : 1;
}
