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
  for (const auto& [number, received] : received_)
    for (const auto& piece : received.pieces) close(piece.first);
}

void Mappings::release(std::uint64_t number) {
  const auto it = mapped_.find(number);
  if (it == mapped_.end()) return;
  virtual_memory().unmap_new(it->second.base, it->second.layout, it->second.bytes);
  mapped_.erase(it);
}

void Mappings::receive(std::uint64_t number) {
  for (;;) {
    if (const auto it = received_.find(number);
        it != received_.end() && it->second.pieces.size() == it->second.first.pieces)
      return;
    HandleMessage message{};
    const int fd = receive_descriptor(kMemoryFd, &message);
    if (fd < 0) throw BadRequest("the request uses device memory that was not sent with it");
    auto [it, first] = received_.try_emplace(message.allocation, Received{message, {}});
    Received& received = it->second;
    received.pieces.push_back({fd, message});  // closed with the others, even when found wrong below
    if (mapped_.count(message.allocation) || received.pieces.size() > received.first.pieces ||
        message.bytes != received.first.bytes || message.pieces != received.first.pieces)
      throw BadRequest("device memory sent twice, or its pieces disagree");
  }
}

void* Mappings::open(std::uint64_t number, int device) {
  if (const auto it = mapped_.find(number); it != mapped_.end()) return reinterpret_cast<void*>(it->second.base);
  // Its descriptors were sent before this request.
  receive(number);
  const Received received = received_[number];
  received_.erase(number);
  const VirtualMemory& vm = virtual_memory();
  cudaError_t prepared = cudaSetDevice(device);
  if (prepared == cudaSuccess) prepared = cudaFree(nullptr);  // the context, current
  std::vector<Piece> layout;
  CUresult status = prepared == cudaSuccess && vm.complete() ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
  for (const auto& [fd, message] : received.pieces) {
    CUmemGenericAllocationHandle handle{};
    if (status == CUDA_SUCCESS)
      status = vm.import_handle(&handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)),
                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);
    if (status == CUDA_SUCCESS)
      layout.push_back({handle, static_cast<std::size_t>(message.offset), static_cast<std::size_t>(message.piece_bytes),
                        message.repeated != 0});
  }
  const auto bytes = static_cast<std::size_t>(received.first.bytes);
  CUdeviceptr base = 0;
  if (status == CUDA_SUCCESS) base = vm.map_new(layout, bytes, device, &status);
  for (const Piece& piece : layout) vm.release(piece.handle);  // the mappings hold the memory from now on
  if (prepared != cudaSuccess)
    throw MappingFailed(prepared, std::string("could not map the test's device memory in this process: ") +
                                      cudaGetErrorName(prepared) + " (" + cudaGetErrorString(prepared) + ")");
  if (base == 0)
    throw MappingFailed(cudaErrorMapBufferObjectFailed, "could not map the test's device memory in this process: "
                                                        "CUDA driver error " + std::to_string(status));
  mapped_[number] = {base, bytes, layout};
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
