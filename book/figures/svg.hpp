/// @file svg.hpp
/// @brief A very small SVG writer for the book's figures: shapes, text, linear axes.
///
/// Why not a plotting library: the figures must be regenerated on every machine that builds the
/// docs (including offline GPU machines), from the chapters' own analysis code, so they are drawn by
/// a C++ program that links those chapters. Nothing here knows about CUDA.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmpp/report.hpp"

namespace pmpp::book {

/// Colour-blind-safe palette (Okabe and Ito), in the order the figures use it.
inline const char* palette(std::size_t i) {
  static const char* colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

inline std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// A number as the figures print it: no trailing zeros, at most @p decimals decimals, rounded half up
/// as the text rounds (pmpp::fixed).
inline std::string fmt(double v, int decimals = 2) {
  std::string s = fixed(v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

/// Maps a data interval onto a pixel interval (y pixels grow downwards, so pass r0 > r1 for y).
struct LinearScale {
  double d0, d1, r0, r1;
  double operator()(double v) const { return r0 + (v - d0) / (d1 - d0) * (r1 - r0); }
};

/// One SVG document. Attributes are passed through as text so a figure reads like the SVG it makes.
class Svg {
 public:
  Svg(double width, double height) : width_(width), height_(height) {
    // An opaque background keeps the figure readable under the dark theme of the docs.
    rect(0, 0, width, height, R"(fill="#ffffff")");
  }

  Svg& line(double x1, double y1, double x2, double y2, std::string_view attrs) {
    body_ << "<line x1=\"" << n(x1) << "\" y1=\"" << n(y1) << "\" x2=\"" << n(x2) << "\" y2=\"" << n(y2) << "\" "
          << attrs << "/>\n";
    return *this;
  }
  Svg& polyline(const std::vector<std::pair<double, double>>& points, std::string_view attrs) {
    body_ << "<polyline fill=\"none\" points=\"";
    for (const auto& [x, y] : points) body_ << n(x) << ',' << n(y) << ' ';
    body_ << "\" " << attrs << "/>\n";
    return *this;
  }
  Svg& circle(double cx, double cy, double r, std::string_view attrs) {
    body_ << "<circle cx=\"" << n(cx) << "\" cy=\"" << n(cy) << "\" r=\"" << n(r) << "\" " << attrs << "/>\n";
    return *this;
  }
  Svg& rect(double x, double y, double w, double h, std::string_view attrs) {
    body_ << "<rect x=\"" << n(x) << "\" y=\"" << n(y) << "\" width=\"" << n(w) << "\" height=\"" << n(h) << "\" "
          << attrs << "/>\n";
    return *this;
  }
  /// A raster image, e.g. a `data:image/png;base64,...` URI (see png.hpp); drawn pixel for pixel.
  Svg& raster(double x, double y, double w, double h, const std::string& href) {
    body_ << "<image x=\"" << n(x) << "\" y=\"" << n(y) << "\" width=\"" << n(w) << "\" height=\"" << n(h)
          << "\" image-rendering=\"pixelated\" href=\"" << href << "\"/>\n";
    return *this;
  }
  /// @p attrs may set text-anchor, font-size, fill, font-weight.
  Svg& text(double x, double y, std::string_view content, std::string_view attrs = "") {
    body_ << "<text x=\"" << n(x) << "\" y=\"" << n(y) << "\" " << attrs << '>' << xml_escape(content) << "</text>\n";
    return *this;
  }
  /// A title element: screen readers and browser tooltips show it.
  Svg& title(std::string_view content) {
    title_ = xml_escape(content);
    return *this;
  }

  std::string str() const {
    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << n(width_) << "\" height=\"" << n(height_)
        << "\" viewBox=\"0 0 " << n(width_) << ' ' << n(height_)
        << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n";
    if (!title_.empty()) out << "<title>" << title_ << "</title>\n";
    out << body_.str() << "</svg>\n";
    return out.str();
  }
  void save(const std::string& path) const {
    std::ofstream file(path);
    if (!(file << str())) throw std::runtime_error("cannot write " + path);
  }

 private:
  static std::string n(double v) { return fmt(v, 1); }
  double width_, height_;
  std::string title_;
  std::ostringstream body_;
};

/// The rectangle a chart draws its data in, with its two scales, grid lines and labelled axes.
struct Plot {
  double left, top, right, bottom;  ///< pixel bounds of the data area
  LinearScale x, y;

  Plot(double l, double t, double r, double b, double x0, double x1, double y0, double y1)
      : left(l), top(t), right(r), bottom(b), x{x0, x1, l, r}, y{y0, y1, b, t} {}

  void axes(Svg& svg, const std::vector<double>& x_ticks, const std::vector<double>& y_ticks,
            std::string_view x_label, std::string_view y_label) const {
    for (double v : y_ticks) {
      svg.line(left, y(v), right, y(v), R"(stroke="#e3e3e3")");
      svg.text(left - 6, y(v) + 4, fmt(v), R"(text-anchor="end" fill="#333")");
    }
    for (double v : x_ticks) {
      svg.line(x(v), bottom, x(v), bottom + 5, R"(stroke="#333")");
      svg.text(x(v), bottom + 19, fmt(v), R"(text-anchor="middle" fill="#333")");
    }
    svg.line(left, bottom, right, bottom, R"(stroke="#333")");
    svg.line(left, top, left, bottom, R"(stroke="#333")");
    svg.text((left + right) / 2, bottom + 40, x_label, R"(text-anchor="middle")");
    std::ostringstream rotate;
    rotate << "text-anchor=\"middle\" transform=\"rotate(-90 " << left - 45 << ' ' << (top + bottom) / 2 << ")\"";
    svg.text(left - 45, (top + bottom) / 2, y_label, rotate.str());
  }
};

}  // namespace pmpp::book
