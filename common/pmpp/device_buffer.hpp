/// @file device_buffer.hpp
/// @brief DeviceBuffer<T>: cudaMalloc / cudaMemcpy / cudaFree, made exception-safe.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "pmpp/cuda_check.hpp"

namespace pmpp {

/// An array of @p T in device memory that frees itself.
///
/// This is exactly the round trip that `ch07_convolution/01_basic.cu` writes out by hand
/// (cudaMalloc, cudaMemcpy in, launch, cudaMemcpy out, cudaFree, each checked), made exception-safe:
/// the memory is freed on every path out of the scope, including a failed check. Move-only, because
/// two owners of one allocation would free it twice.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocate @p count elements (uninitialized).
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  /// Allocate and copy @p host to the device.
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { copy_from(host.data(), host.size()); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Copy @p count host elements in; @p count must not exceed the buffer's size.
  void copy_from(const T* host, std::size_t count) {
    if (count > count_) throw std::length_error("DeviceBuffer::copy_from: source longer than buffer");
    if (count > 0) CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  /// Copy the whole buffer back to the host.
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  /// Fill every byte with 0xFF. For float and double that is a NaN, so an element the kernel forgot
  /// to write can never pass a check by accident (zeros would, for many inputs).
  void poison() {
    if (count_ > 0) CUDA_CHECK(cudaMemset(data_, 0xFF, bytes()));
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);  // no throw from a destructor; errors resurface at the next call
    data_ = nullptr;
    count_ = 0;
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace pmpp
