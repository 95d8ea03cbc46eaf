// The chapter-7 page's table of stages, written from the stage table the programs and tests iterate
// over: a stage that lands in the code appears in the book at the next docs build.
#include <fstream>
#include <stdexcept>
#include <string>

#include "ch07_convolution/convolution.hpp"
#include "figures.hpp"
#include "svg.hpp"

namespace pmpp::book {

void write_ch07_stage_table(const std::string& dir) {
  namespace ch07 = pmpp::ch07;
  // The text's worked configuration: a 5x5 filter and 32x32 input tiles.
  constexpr int radius = 2, tile = 32;
  std::ofstream md(dir + "/ch07_stage_table.md");
  md << "| stage (source) | program | mirrors | what it does | text's OP/B, 5x5 filter, 32x32 tile |\n"
     << "|---|---|---|---|---|\n";
  for (const ch07::Stage& s : ch07::stages()) {
    const std::string id = s.id;
    md << "| \\ref chapters/ch07_convolution/" << id << ".cu \"" << id << "\" | `ch07_" << id << "` | " << s.figure
       << " | " << s.title << " | " << fmt(s.text_op_per_byte(radius, tile)) << " |\n";
  }
  if (!md) throw std::runtime_error("cannot write " + dir + "/ch07_stage_table.md");
}

}  // namespace pmpp::book
