// book_make_figures: writes the book's generated figures (SVG) and tables (Markdown fragments) into
// one folder, from the chapters' analysis code. The `docs` target runs it before Doxygen.
#include <cstdio>
#include <filesystem>

#include "figures.hpp"
#include "pmpp/cli.hpp"
#include "pmpp/program.hpp"

int main(int argc, char** argv) {
  const char* program = "book_make_figures";
  return pmpp::guarded_main(program, [&] {
    std::string out;
    pmpp::Cli cli(program, "Write the book's figures (SVG) and generated tables (Markdown) into --out.");
    cli.option("--out", out, "folder to write into (created if missing)");
    if (!cli.parse(argc, argv)) return int{pmpp::kExitPass};
    if (out.empty()) throw pmpp::UsageError("--out is required");
    std::filesystem::create_directories(out);

#ifdef PMPP_BOOK_CH05
    pmpp::book::write_ch05_stage_table(out);
#endif
#ifdef PMPP_BOOK_CH07
    pmpp::book::write_fig_7_14(out);
    pmpp::book::write_ch07_stage_table(out);
#endif
#ifdef PMPP_BOOK_CH10
    pmpp::book::write_ch10_stage_table(out);
#endif
#ifdef PMPP_BOOK_CH10_MULTI_GPU
    pmpp::book::write_ch10_ring(out);
#endif
#ifdef PMPP_BOOK_CH07_IMAGES
    pmpp::book::write_ch07_image_filters(out);
#endif
    std::printf("%s: figures written to %s\n", program, out.c_str());
    return int{pmpp::kExitPass};
  });
}
