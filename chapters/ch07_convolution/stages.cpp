// The chapter's stage table: drivers and tests iterate over it, so adding a stage is one row here.
#include <sstream>

#include "ch07_convolution/convolution.hpp"

namespace pmpp::ch07 {

std::string LaunchConfig::to_string() const {
  std::ostringstream s;
  s << "grid (" << grid.x << ", " << grid.y << ", " << grid.z << ") block (" << block.x << ", " << block.y << ", "
    << block.z << ") shared " << shared_bytes << " B";
  return s.str();
}

namespace {
const std::vector<Stage> kStages = {
    {"01_basic", "basic, filter by pointer", "Fig 7.7", MAX_FILTER_RADIUS, nullptr, convolution_2D_basic,
     [](int radius, int) { return basic_op_per_byte(radius); },
     "the model counts every tap as a global load, but L1/L2 serve the (2r+1)^2-fold re-reads of each pixel"},
};
}  // namespace

const std::vector<Stage>& stages() { return kStages; }

const Stage* find_stage(std::string_view id) {
  for (const auto& s : kStages)
    if (id == s.id) return &s;
  return nullptr;
}

}  // namespace pmpp::ch07
