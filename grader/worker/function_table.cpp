// Decoding a call's arguments in the worker (see function_table.hpp).
#include "function_table.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>

namespace pmpp_grader {

std::vector<RemoteFunction>& remote_functions() {
  static std::vector<RemoteFunction> functions;  // filled by static Registration objects
  return functions;
}

Mappings::~Mappings() {
  for (const Open& m : open_) cudaIpcCloseMemHandle(m.base);
}

void* Mappings::open(const char* handle, int device) {
  const std::string key(handle, kIpcHandleBytes);
  const auto found = std::find_if(open_.begin(), open_.end(), [&](const Open& m) { return m.handle == key; });
  if (found != open_.end()) {
    found->call = call_;
    std::rotate(found, found + 1, open_.end());  // now the most recently used
    return open_.back().base;
  }
  if (open_.size() == kMaxOpen) {
    cudaIpcCloseMemHandle(open_.front().base);
    open_.erase(open_.begin());
  }
  cudaError_t status = cudaSetDevice(device);
  cudaIpcMemHandle_t ipc{};
  static_assert(sizeof ipc.reserved == kIpcHandleBytes, "the wire carries CUDA_IPC_HANDLE_SIZE bytes");
  std::memcpy(ipc.reserved, handle, kIpcHandleBytes);
  void* base = nullptr;
  if (status == cudaSuccess) status = cudaIpcOpenMemHandle(&base, ipc, cudaIpcMemLazyEnablePeerAccess);
  if (status == cudaErrorAlreadyMapped) {  // a mapping left from an earlier call holds this memory
    cudaGetLastError();
    close_unused();
    status = cudaIpcOpenMemHandle(&base, ipc, cudaIpcMemLazyEnablePeerAccess);
  }
  if (status != cudaSuccess)
    throw MappingFailed(status, std::string("could not open the test's device memory in this process: ") +
                                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  open_.push_back({key, base, call_});
  return base;
}

void Mappings::close_unused() {
  std::vector<Open> used;
  for (Open& m : open_) {
    if (m.call == call_) used.push_back(std::move(m));
    else cudaIpcCloseMemHandle(m.base);
  }
  open_ = std::move(used);
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
      std::size_t n = 0;
      const char* handle = frame_.get_bytes(kIpcHandleBytes, &n);
      if (n != kIpcHandleBytes) throw BadRequest("an IPC handle of the wrong size");
      const auto device = frame_.get<std::int32_t>();
      const auto offset = frame_.get<std::uint64_t>();
      return static_cast<const char*>(mappings_.open(handle, device)) + offset;
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
