// The named masks of the image program: box, gaussian, sharpen, edge (see image.hpp for each one's
// weights and why).
#include <cstdio>
#include <sstream>

#include "ch07_convolution/image_filter/image.hpp"
#include "pmpp/cli.hpp"

namespace pmpp::ch07 {

double Mask::sum() const {
  double s = 0;
  for (float w : weights) s += w;
  return s;
}

std::string Mask::describe() const {
  char line[160];
  std::snprintf(line, sizeof line, "%s %d x %d (width x height), weights sum to %.6g", name.c_str(), width, height,
                sum());
  return line;
}

std::string Mask::table() const {
  if (width > 9 || height > 9) return "  (" + std::to_string(width * height) + " weights; tables are printed up to 9 x 9)\n";
  std::string text;
  for (int i = 0; i < height; ++i) {
    text += " ";
    for (int j = 0; j < width; ++j) {
      char cell[32];
      std::snprintf(cell, sizeof cell, " %9.6f", at(i, j));
      text += cell;
    }
    text += '\n';
  }
  return text;
}

const std::vector<std::string>& filter_names() {
  static const std::vector<std::string> names{"box", "gaussian", "sharpen", "edge"};
  return names;
}

namespace {

void check_side(const char* which, int side) {
  if (side < 1 || side > MAX_MASK_DIM || side % 2 == 0)
    throw UsageError(std::string("mask ") + which + " must be odd and in [1, " + std::to_string(MAX_MASK_DIM) +
                     "] (an odd side puts a tap at the centre), got " + std::to_string(side));
}

/// The n numbers of row n - 1 of Pascal's triangle over their sum 2^(n-1): a 1D discrete Gaussian.
std::vector<double> binomial_row(int n) {
  std::vector<double> row(static_cast<std::size_t>(n), 0.0);
  row[0] = 1;
  for (int k = 1; k < n; ++k)
    for (int j = k; j > 0; --j) row[j] += row[j - 1];
  for (double& v : row) v /= static_cast<double>(std::uint64_t{1} << (n - 1));
  return row;
}

}  // namespace

void validate_mask(const Mask& mask) {
  check_side("width", mask.width);
  check_side("height", mask.height);
  if (mask.weights.size() != static_cast<std::size_t>(mask.width) * mask.height)
    throw UsageError("mask '" + mask.name + "' has " + std::to_string(mask.weights.size()) + " weights, not " +
                     std::to_string(mask.width) + " x " + std::to_string(mask.height));
}

Mask make_filter(const std::string& name, int mask_width, int mask_height) {
  if (name == "sharpen" || name == "edge") {
    if ((mask_width != 0 && mask_width != 3) || (mask_height != 0 && mask_height != 3))
      throw UsageError("the " + name + " mask is 3 x 3; --mask-width and --mask-height apply to box and gaussian");
    const float centre = name == "sharpen" ? 5.0f : 8.0f;
    const float corner = name == "sharpen" ? 0.0f : -1.0f;
    return {name, 3, 3, {corner, -1.0f, corner, -1.0f, centre, -1.0f, corner, -1.0f, corner}};
  }
  if (name != "box" && name != "gaussian") {
    std::string known;
    for (const auto& n : filter_names()) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown filter '" + name + "'; the filters are " + known);
  }
  // One side given: a square mask of that side. Neither: 5 x 5.
  const int w = mask_width ? mask_width : (mask_height ? mask_height : 5);
  const int h = mask_height ? mask_height : w;
  check_side("width", w);
  check_side("height", h);
  Mask mask{name, w, h, std::vector<float>(static_cast<std::size_t>(w) * h)};
  if (name == "box") {
    for (float& v : mask.weights) v = static_cast<float>(1.0 / (static_cast<double>(w) * h));
  } else {
    const auto across = binomial_row(w), down = binomial_row(h);
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < w; ++j) mask.weights[static_cast<std::size_t>(i) * w + j] = static_cast<float>(down[i] * across[j]);
  }
  return mask;
}

}  // namespace pmpp::ch07
