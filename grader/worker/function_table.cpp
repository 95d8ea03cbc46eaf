// Decoding a call's arguments in the worker (see function_table.hpp).
#include "function_table.hpp"

#include <cuda_runtime_api.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "descriptors.hpp"
#include "driver_api.hpp"

namespace pmpp_grader {

std::vector<RemoteFunction>& remote_functions() {
  static std::vector<RemoteFunction> functions;  // filled by static Registration objects
  return functions;
}

Mappings::~Mappings() {
  while (!mapped_.empty()) release(mapped_.begin()->first);
  for (const auto& [number, received] : received_) close(received.first);
}

void Mappings::release(std::uint64_t number) {
  const auto it = mapped_.find(number);
  if (it == mapped_.end()) return;
  const VirtualMemory& vm = virtual_memory();
  vm.unmap(it->second.base, it->second.bytes);
  vm.free_range(it->second.base, it->second.bytes);
  mapped_.erase(it);
}

void* Mappings::open(std::uint64_t number, int device) {
  if (const auto it = mapped_.find(number); it != mapped_.end()) return reinterpret_cast<void*>(it->second.base);
  // Its descriptor was sent before this request: take what waits on the socket until it comes.
  while (!received_.count(number)) {
    HandleMessage message{};
    const int fd = receive_descriptor(kMemoryFd, &message);
    if (fd < 0) throw BadRequest("the request uses device memory that was not sent with it");
    if (received_.count(message.allocation) || mapped_.count(message.allocation)) {
      close(fd);
      throw BadRequest("device memory sent twice");
    }
    received_[message.allocation] = {fd, static_cast<std::size_t>(message.bytes)};
  }
  const auto [fd, bytes] = received_[number];
  received_.erase(number);
  const VirtualMemory& vm = virtual_memory();
  cudaError_t prepared = cudaSetDevice(device);
  if (prepared == cudaSuccess) prepared = cudaFree(nullptr);  // the context, current
  CUmemGenericAllocationHandle handle{};
  CUresult status = CUDA_ERROR_NOT_SUPPORTED;
  if (prepared == cudaSuccess && vm.complete())
    status = vm.import_handle(&handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)),
                              CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  close(fd);
  CUdeviceptr base = 0;
  if (status == CUDA_SUCCESS) {
    base = vm.map_new(handle, bytes, device, &status);
    vm.release(handle);  // the mapping holds the memory from now on
  }
  if (prepared != cudaSuccess)
    throw MappingFailed(prepared, std::string("could not map the test's device memory in this process: ") +
                                      cudaGetErrorName(prepared) + " (" + cudaGetErrorString(prepared) + ")");
  if (base == 0)
    throw MappingFailed(cudaErrorMapBufferObjectFailed, "could not map the test's device memory in this process: "
                                                        "CUDA driver error " + std::to_string(status));
  mapped_[number] = {base, bytes};
  return reinterpret_cast<void*>(base);
}

Tag Arguments::next_tag() {
  if (left_ == 0) throw BadRequest("the request has fewer arguments than the function");
  --left_;
  return static_cast<Tag>(frame_.get<std::uint8_t>());
}

const void* Arguments::pointer(bool read_only) {
  switch (next_tag()) {
    case Tag::null_pointer:
      return nullptr;
    case Tag::address:
      return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(frame_.get<std::uint64_t>()));
    case Tag::device: {
      const auto number = frame_.get<std::uint64_t>();
      const auto device = frame_.get<std::int32_t>();
      const auto offset = frame_.get<std::uint64_t>();
      return static_cast<const char*>(mappings_.open(number, device)) + offset;
    }
    case Tag::host: {
      if (!read_only) throw BadRequest("host memory can only be passed to a const pointer");
      std::size_t n = 0;
      const char* bytes = frame_.get_bytes(kMaxFrame, &n);
      // A fresh, suitably aligned copy; never empty, so that a zero-length array is still not null.
      host_copies_.emplace_back(new char[std::max<std::size_t>(n, 1)]);
      std::memcpy(host_copies_.back().get(), bytes, n);
      return host_copies_.back().get();
    }
    case Tag::scalar:
      break;
  }
  throw BadRequest("a pointer parameter was sent something else");
}

void Arguments::scalar(void* out, std::size_t size, ScalarKind kind) {
  if (next_tag() != Tag::scalar) throw BadRequest("a number parameter was sent something else");
  const auto sent_kind = static_cast<ScalarKind>(frame_.get<std::uint8_t>());
  std::size_t n = 0;
  const char* bytes = frame_.get_bytes(16, &n);
  if (sent_kind != kind || n != size) throw BadRequest("a number of another type than the parameter's");
  std::memcpy(out, bytes, size);
}

}  // namespace pmpp_grader
