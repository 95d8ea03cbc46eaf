// The chapter-5 page's table of stages, written from the stage table the programs and tests iterate
// over, with each stage's intensity in the text's model at its default tile.
#include <fstream>
#include <stdexcept>
#include <string>

#include "ch05_matmul/matmul.hpp"
#include "figures.hpp"
#include "svg.hpp"

namespace pmpp::book {

void write_ch05_stage_table(const std::string& dir) {
  namespace ch05 = pmpp::ch05;
  std::ofstream md(dir + "/ch05_stage_table.md");
  md << "| stage (source) | program | mirrors | what it does | TILE_WIDTH | text's OP/B |\n"
     << "|---|---|---|---|---|---|\n";
  for (const ch05::Stage& s : ch05::stages()) {
    const std::string id = s.id;
    std::string tiles = "-";
    if (!s.tiles.empty()) {
      tiles.clear();
      for (int t : s.tiles) tiles += (tiles.empty() ? "" : " or ") + std::to_string(t);
    }
    md << "| \\ref chapters/ch05_matmul/" << id << ".cu \"" << id << "\" | `ch05_" << id << "` | " << s.figure << " | "
       << s.title << " | " << tiles << " | " << fmt(s.text_op_per_byte(ch05::effective_tile(s, 0))) << " |\n";
  }
  if (!md) throw std::runtime_error("cannot write " + dir + "/ch05_stage_table.md");
}

}  // namespace pmpp::book
