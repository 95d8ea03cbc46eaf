// The chapter-10 page's table of stages, written from the stage table the programs and tests iterate
// over, with the library baseline the side-by-side program runs next to them.
#include <fstream>
#include <stdexcept>
#include <string>

#include "ch10_reduction/reduction.hpp"
#include "figures.hpp"

namespace pmpp::book {

void write_ch10_stage_table(const std::string& dir) {
  namespace ch10 = pmpp::ch10;
  std::ofstream md(dir + "/ch10_stage_table.md");
  md << "| stage (source) | program | mirrors | what it does | elements | operators |\n"
     << "|---|---|---|---|---|---|\n";
  for (const ch10::Stage& s : ch10::stages()) {
    const std::string id = s.id;
    const std::string limit = s.max_n == ch10::SINGLE_BLOCK_MAX_N ? "up to " + std::to_string(s.max_n) : "any number";
    md << "| \\ref chapters/ch10_reduction/" << id << ".cu \"" << id << "\" | `ch10_" << id << "` | " << s.figure
       << " | " << s.title << " | " << limit << " | " << (s.all_operators ? "sum, max, min, product" : "sum")
       << " |\n";
  }
  const ch10::Stage& cub = ch10::cub_baseline();
  md << "| " << cub.id << " | (in `ch10_reduction`) | " << cub.figure << " | " << cub.title << " | any number | "
     << (cub.all_operators ? "sum, max, min, product" : "sum") << " |\n";
  if (!md) throw std::runtime_error("cannot write " + dir + "/ch10_stage_table.md");
}

}  // namespace pmpp::book
