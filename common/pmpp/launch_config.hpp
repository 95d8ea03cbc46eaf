/// @file launch_config.hpp
/// @brief What a launcher launched (grid, block, shared memory), in plain C++ so that chapter headers
/// stay free of CUDA types. Programs print it next to the time.
#pragma once

#include <cstddef>
#include <string>

namespace pmpp {

/// A grid or block shape, without pulling CUDA's dim3 into plain C++ files.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// A launch as the launcher made it. A library call (cuBLAS, cuDNN) chooses its own configuration and
/// reports none: grid.x == 0.
struct LaunchConfig {
  Dim3 grid{0, 0, 0}, block{0, 0, 0};
  std::size_t shared_bytes = 0;

  bool known() const { return grid.x != 0; }
  /// "grid (256, 256, 1) block (32, 32, 1) shared 0 B"
  std::string to_string() const {
    if (!known()) return "chosen by the library";
    return "grid (" + dims(grid) + ") block (" + dims(block) + ") shared " + std::to_string(shared_bytes) + " B";
  }

 private:
  static std::string dims(Dim3 d) {
    return std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z);
  }
};

/// The row of a stage table whose `id` is @p id, or nullptr: every chapter's find_stage.
template <class Table, class Id>
auto find_by_id(const Table& table, const Id& id) -> decltype(&*table.begin()) {
  for (const auto& row : table)
    if (id == row.id) return &row;
  return nullptr;
}

}  // namespace pmpp
