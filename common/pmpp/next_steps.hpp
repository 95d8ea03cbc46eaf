/// @file next_steps.hpp
/// @brief What a student without a GPU can do next: read a program's run recorded on a real GPU, read
/// its chapter in the book, or run it on a hosted GPU through the notebook.
///
/// Every program ends with this block when it finds no GPU, named for that program; `make tour`
/// prints it once at its end for all the programs it ran (`pmpp_next_steps`), and its programs print
/// only their one "no GPU" line. Only what the source tree holds is named: the recorded runs
/// (`results/<gpu>/`, written by scripts/record-runs), the book's chapter pages (book/pages.txt) and
/// the notebook.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pmpp {

/// What the source tree offers for some programs, as paths relative to it.
struct NextSteps {
  std::vector<std::string> recorded_runs;  ///< "results/<gpu>/<run>.log": one per program that has one
  std::size_t more_runs = 0;               ///< runs recorded for these programs beyond those named
  std::vector<std::string> book_pages;     ///< "book/<chapter>.md", each once
  std::string notebook;                    ///< "notebooks/hosted_gpu.ipynb", or empty where it is missing
};

/// The Colab address of the notebook at @p notebook (a path in the repository).
std::string colab_link(const std::string& notebook);

/// Look in the tree at @p source_dir for what fits @p programs ("ch07_03_tiled_halo", ...):
///  - a recorded run: the program's own (`<program>_*.log`), else its chapter's side-by-side run,
///    which shows every stage; from the first GPU folder (by name) that has one, and of several the
///    plainest, the one with the shortest name (record-runs names a run `<program>_<size>[_<variant>]`);
///  - the book's page of the program's chapter: the page named as the program begins, else the first
///    page of its chapter number in the reading order (ch10_matrix_sum: ch10_reduction);
///  - the hosted-GPU notebook.
NextSteps find_next_steps(const std::string& source_dir, const std::vector<std::string>& programs);

/// The block people read: a heading and one item per kind of step, each line at most 100 columns.
std::string describe_next_steps(const NextSteps& steps);

/// The one line (wrapped at 100 columns) a program prints when there is no GPU, saying @p why, that the
/// GPU run is skipped, and the exit status; then, unless `make tour` runs it (PMPP_TOUR is set in the
/// environment: the tour prints the block once at its end), the block for @p program.
void explain_no_gpu(const char* program, const std::string& why);

}  // namespace pmpp
