// ch10_ring.svg: the ring all-reduce over 4 GPUs, drawn from the ring's own plan (pmpp::ch10::multi_gpu):
// the GPUs in a circle with the link each sends over, and step by step which segment each one sends,
// coloured by segment, so that a segment's journey (added to at each hop, then copied around) can be
// followed with the eye. Beside it, two tables from the cost model: what each GPU sends as the ring grows
// (ch10_ring_traffic.md) and where each byte goes in either ring (ch10_ring_bytes.md).
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>

#include "ch10_reduction/multi_gpu/multi_gpu.hpp"
#include "figures.hpp"
#include "svg.hpp"

namespace pmpp::book {

void write_ch10_ring(const std::string& dir) {
  namespace mg = pmpp::ch10::multi_gpu;
  constexpr int p = 4;
  const mg::RingPlan plan = mg::plan_ring(std::size_t{1} << 20, p);
  Svg svg(900, 420);
  svg.title("The ring all-reduce over 4 GPUs: reduce-scatter, then all-gather");

  // Left: the GPUs around the ring, each sending to the next.
  const double cx = 170, cy = 215, radius = 110;
  const auto at = [&](int r, double extra = 0) {
    const double angle = -M_PI / 2 + 2 * M_PI * r / p;
    return std::pair<double, double>{cx + (radius + extra) * std::cos(angle), cy + (radius + extra) * std::sin(angle)};
  };
  svg.text(cx, 40, "4 GPUs in a ring", R"(text-anchor="middle" font-weight="bold")");
  for (int r = 0; r < p; ++r) {
    // The link to the next GPU: an arc-like straight arrow between the two boxes' edges.
    const auto [x1, y1] = at(r);
    const auto [x2, y2] = at((r + 1) % p);
    const double dx = x2 - x1, dy = y2 - y1, length = std::hypot(dx, dy);
    const double ux = dx / length, uy = dy / length, trim = 38;
    const double ax = x1 + ux * trim, ay = y1 + uy * trim, bx = x2 - ux * trim, by = y2 - uy * trim;
    svg.line(ax, ay, bx, by, R"(stroke="#444" stroke-width="2")");
    svg.line(bx, by, bx - 9 * ux + 5 * uy, by - 9 * uy - 5 * ux, R"(stroke="#444" stroke-width="2")");
    svg.line(bx, by, bx - 9 * ux - 5 * uy, by - 9 * uy + 5 * ux, R"(stroke="#444" stroke-width="2")");
  }
  for (int r = 0; r < p; ++r) {
    const auto [x, y] = at(r);
    svg.rect(x - 34, y - 22, 68, 44, R"(rx="6" fill="#f4f4f4" stroke="#333")");
    svg.text(x, y - 3, "GPU " + std::to_string(r), R"(text-anchor="middle" font-weight="bold")");
    svg.text(x, y + 13, "holds s0-s3", R"(text-anchor="middle" font-size="11" fill="#555")");
  }
  svg.text(cx, 395, "each GPU sends to the next, all at once", R"(text-anchor="middle" font-size="12" fill="#555")");

  // Right: who sends which segment at each step.
  const double left = 380, top = 70, cell_w = 92, cell_h = 34;
  svg.text(left + 110 + 2 * cell_w, 40, "step by step: the segment each GPU sends to the next",
           R"(text-anchor="middle" font-weight="bold")");
  for (int r = 0; r < p; ++r)
    svg.text(left + 110 + r * cell_w + cell_w / 2, top - 8, "GPU " + std::to_string(r), R"(text-anchor="middle")");
  for (int step = 0; step < plan.steps(); ++step) {
    const double y = top + step * cell_h;
    svg.text(left, y + cell_h / 2 + 4,
             std::to_string(step + 1) + (plan.reduces(step) ? "  reduce-scatter" : "  all-gather"),
             R"(font-size="12")");
    for (int r = 0; r < p; ++r) {
      const int s = plan.send_segment(r, step);
      const double x = left + 110 + r * cell_w;
      const std::string fill = std::string("fill=\"") + palette(static_cast<std::size_t>(s)) +
                               (plan.reduces(step) ? "\" fill-opacity=\"0.35\"" : "\" fill-opacity=\"0.8\"");
      svg.rect(x + 3, y + 3, cell_w - 6, cell_h - 6, fill + R"( stroke="#333" rx="4")");
      svg.text(x + cell_w / 2, y + cell_h / 2 + 4, "s" + std::to_string(s) + (plan.reduces(step) ? " (+)" : " (=)"),
               R"(text-anchor="middle")");
    }
  }
  const double below = top + plan.steps() * cell_h + 22;
  svg.text(left, below, "(+) the receiver adds the segment into its copy and passes the sum on;",
           R"(font-size="12" fill="#333")");
  svg.text(left, below + 17, "after 3 steps GPU r holds the whole sum of segment r+1.", R"(font-size="12" fill="#333")");
  svg.text(left, below + 34, "(=) the receiver copies the finished segment and passes it on.",
           R"(font-size="12" fill="#333")");
  svg.text(left, below + 51, "Each GPU sends 2(p-1)/p = 1.5 vectors in all, piece by piece.",
           R"(font-size="12" fill="#333")");
  svg.save(dir + "/ch10_ring.svg");

  // ch10_ring_traffic.md: what each GPU sends for a 256 MiB vector as the ring grows, from the cost model.
  std::ofstream md(dir + "/ch10_ring_traffic.md");
  const double vector = 256.0 * 1048576.0;
  md << "| GPUs p | steps 2(p-1) | segment | each GPU sends (and receives) | busbw / algbw = 2(p-1)/p |\n"
     << "|---|---|---|---|---|\n";
  for (int ranks : {2, 4, 8, 16}) {
    md << "| " << ranks << " | " << 2 * (ranks - 1) << " | " << fmt(256.0 / ranks) << " MiB | "
       << fmt(mg::ring_bytes_per_rank(vector, ranks) / 1048576.0) << " MiB | "
       << fmt(mg::bus_bandwidth(1.0, ranks), 3) << " |\n";
  }
  if (!md) throw std::runtime_error("cannot write " + dir + "/ch10_ring_traffic.md");

  // ch10_ring_bytes.md: where each byte goes in either ring, per float a GPU sends in one step, from the
  // cost model (the programs print the same table).
  std::ofstream bytes(dir + "/ch10_ring_bytes.md");
  bytes << "| ring | step | link out | link in | DRAM read | DRAM written | DRAM bytes per link byte |\n"
        << "|---|---|---:|---:|---:|---:|---:|\n";
  for (mg::RingKind ring : {mg::RingKind::copy_engine, mg::RingKind::fused}) {
    for (bool reduces : {true, false}) {
      const mg::StepBytes b = mg::step_bytes(ring, reduces);
      bytes << "| " << (ring == mg::RingKind::copy_engine ? "copy-engine" : "fused") << " | "
            << (reduces ? "reduce-scatter" : "all-gather") << " | " << fmt(b.link_out, 0) << " | " << fmt(b.link_in, 0)
            << " | " << fmt(b.dram_read, 0) << " | " << fmt(b.dram_write, 0) << " | " << fmt(b.dram() / b.link_out, 1)
            << " |\n";
    }
  }
  if (!bytes) throw std::runtime_error("cannot write " + dir + "/ch10_ring_bytes.md");
}

}  // namespace pmpp::book
