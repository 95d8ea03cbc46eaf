// The text's Fig 7.14 as a chart: how the tiled kernel's arithmetic intensity grows with the tile
// and how far the 1024-thread block limit leaves it from its bound. Every number comes from
// pmpp::ch07::tiled_op_per_byte, the function the programs print and the tests check.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "figures.hpp"
#include "svg.hpp"
#include "ch07_convolution/convolution.hpp"

namespace pmpp::book {
namespace {
// One thread per input pixel: a T x T block, and CUDA allows at most 1024 threads, so T <= 32.
constexpr int kLargestBlockSide = 32;
// A white outline under value labels keeps them readable where they cross a line.
constexpr const char* kHalo = R"( stroke="#ffffff" stroke-width="3" paint-order="stroke")";
}  // namespace

void write_fig_7_14(const std::string& dir) {
  namespace ch07 = pmpp::ch07;
  const auto rows = ch07::fig_7_14();
  const auto tiles = ch07::fig_7_14_tiles();
  // Past the largest launchable tile too, so the curves show how slowly they approach their bounds.
  const int x_end = std::max(2 * kLargestBlockSide, *std::max_element(tiles.begin(), tiles.end()));
  double largest_bound = 0;
  for (const auto& row : rows) largest_bound = std::max(largest_bound, row.bound);
  const double y_top = 10.0 * std::ceil(largest_bound / 10.0);

  Svg svg(780, 470);
  svg.title("Arithmetic intensity of the tiled convolution kernel against the input-tile side");
  const Plot plot(70, 46, 650, 396, 0, x_end + 2, 0, y_top);
  std::vector<double> x_ticks, y_ticks;
  for (int t = 8; t <= x_end; t += 8) x_ticks.push_back(t);
  for (double v = 0; v <= y_top; v += 10) y_ticks.push_back(v);
  plot.axes(svg, x_ticks, y_ticks, "input tile side T (a T x T block loads a T x T tile; its output tile is T - 2r wide)",
            "OP/B: operations per byte loaded from global memory");
  svg.text(plot.left, 24, "Tiled convolution (Fig 7.12): OP/B against tile size, with the bound for an infinite tile",
           R"(font-weight="bold")");

  svg.line(plot.x(kLargestBlockSide), plot.top, plot.x(kLargestBlockSide), plot.bottom,
           R"(stroke="#777" stroke-dasharray="5 4")");
  svg.text(plot.x(kLargestBlockSide) + 5, plot.top + 12,
           "T = 32: 1024 threads, the largest block",
           R"(fill="#555" font-size="13")");

  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const std::string colour = palette(i);
    const std::string stroke = "stroke=\"" + colour + "\"";
    const std::string fill = "fill=\"" + colour + "\"";
    const int d = ch07::filter_dim(row.radius);

    svg.line(plot.x(0), plot.y(row.bound), plot.x(x_end), plot.y(row.bound),
             stroke + R"( stroke-width="1" stroke-dasharray="2 3")");
    svg.text(plot.x(0) + 4, plot.y(row.bound) - 4, "bound " + fmt(row.bound), fill + R"( font-size="13")");

    // Solid where a block of one thread per input pixel can exist (T <= 32), dashed beyond.
    std::vector<std::pair<double, double>> possible, beyond;
    for (int t = 2 * row.radius + 1; t <= x_end; ++t) {
      const std::pair<double, double> p{plot.x(t), plot.y(ch07::tiled_op_per_byte(t, row.radius))};
      if (t <= kLargestBlockSide) possible.push_back(p);
      if (t >= kLargestBlockSide) beyond.push_back(p);
    }
    svg.polyline(possible, stroke + R"( stroke-width="2")");
    svg.polyline(beyond, stroke + R"( stroke-width="2" stroke-dasharray="6 4")");

    for (std::size_t k = 0; k < tiles.size(); ++k) {
      const double v = row.op_per_byte[k];
      if (v <= 0) continue;  // the tile is all halo for this filter: no output, no point
      svg.circle(plot.x(tiles[k]), plot.y(v), 3.5, fill);
      if (tiles[k] == kLargestBlockSide)
        svg.text(plot.x(tiles[k]) - 6, plot.y(v) - 6, fmt(v), fill + R"( text-anchor="end" font-size="13")" + kHalo);
    }
    svg.text(plot.x(x_end) + 8, plot.y(ch07::tiled_op_per_byte(x_end, row.radius)) + 4,
             std::to_string(d) + "x" + std::to_string(d) + " filter", fill);
  }
  svg.save(dir + "/fig_7_14.svg");
}

}  // namespace pmpp::book
