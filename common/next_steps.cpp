// What a student without a GPU can do next (see pmpp/next_steps.hpp).
#include "pmpp/next_steps.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pmpp/gpu_diagnosis.hpp"
#include "pmpp/program.hpp"
#include "pmpp/words.hpp"

namespace pmpp {

namespace {

namespace fs = std::filesystem;

// Lines fit 100 columns (kTerminalWidth); a link longer than an indented line gets one of its own, from
// the first column, so that it is never broken (and stays clickable): wrap_text does both.
constexpr const char* kNotebook = "notebooks/hosted_gpu.ipynb";

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// "ch07" for "ch07_03_tiled_halo"; empty for a program outside the chapters.
std::string chapter_number(const std::string& program) {
  const bool chapter = program.size() > 5 && starts_with(program, "ch") &&
                       std::isdigit(static_cast<unsigned char>(program[2])) &&
                       std::isdigit(static_cast<unsigned char>(program[3])) && program[4] == '_';
  return chapter ? program.substr(0, 4) : "";
}

// The book's pages in reading order: book/pages.txt, a page's name first on each line, '#' comments.
std::vector<std::string> reading_order(const fs::path& root) {
  std::vector<std::string> pages;
  std::ifstream in(root / "book" / "pages.txt");
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string page;
    if (words >> page && page[0] != '#') pages.push_back(page);
  }
  return pages;
}

// The page of @p program's chapter: the one its name begins with (ch10_multi_gpu_mpi: ch10_multi_gpu),
// else the first of its chapter number (ch07_03_tiled_halo: ch07_convolution).
std::string chapter_page(const std::vector<std::string>& pages, const std::string& program) {
  const std::string number = chapter_number(program);
  if (number.empty()) return "";
  std::string first;
  for (const std::string& page : pages) {
    if (!starts_with(page, number + "_")) continue;
    if (program == page || starts_with(program, page + "_")) return page;
    if (first.empty()) first = page;
  }
  return first;
}

// The runs of @p program recorded in @p gpu_dir, plainest first: `<program>_<size>[_<variant>].log`.
// The size comes first, so ch10_multi_gpu's runs are not taken for ch10_multi_gpu_mpi's.
std::vector<std::string> runs_in(const fs::path& gpu_dir, const std::string& program) {
  std::vector<std::string> runs;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(gpu_dir, error)) {
    const std::string name = entry.path().filename().string();
    const std::string prefix = program + "_";
    if (entry.path().extension() == ".log" && starts_with(name, prefix) && name.size() > prefix.size() &&
        std::isdigit(static_cast<unsigned char>(name[prefix.size()])))
      runs.push_back(name);
  }
  std::sort(runs.begin(), runs.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return runs;
}

// Each GPU folder of results/, by name.
std::vector<fs::path> gpu_folders(const fs::path& root) {
  std::vector<fs::path> folders;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(root / "results", error))
    if (entry.is_directory(error)) folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

template <class T>
void add_once(std::vector<T>& list, const T& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

std::string colab_link(const std::string& notebook) {
  return "https://colab.research.google.com/github/pmpp-steps/pmpp-steps/blob/main/" + notebook;
}

NextSteps find_next_steps(const std::string& source_dir, const std::vector<std::string>& programs) {
  const fs::path root(source_dir);
  const std::vector<std::string> pages = reading_order(root);
  const std::vector<fs::path> gpus = gpu_folders(root);
  NextSteps steps;
  for (const std::string& program : programs) {
    const std::string page = chapter_page(pages, program);
    if (!page.empty()) add_once(steps.book_pages, "book/" + page + ".md");
    // The program's own runs, else its chapter's side-by-side program's (named as the chapter's page).
    for (const std::string& name : {program, page}) {
      if (name.empty()) continue;
      std::vector<std::string> runs;
      fs::path folder;
      for (const fs::path& gpu : gpus) {
        runs = runs_in(gpu, name);
        folder = gpu;
        if (!runs.empty()) break;
      }
      if (runs.empty()) continue;
      const std::string run = "results/" + folder.filename().string() + "/" + runs.front();
      if (std::find(steps.recorded_runs.begin(), steps.recorded_runs.end(), run) == steps.recorded_runs.end()) {
        steps.recorded_runs.push_back(run);
        steps.more_runs += runs.size() - 1;
      }
      break;
    }
  }
  std::error_code error;
  if (fs::exists(root / kNotebook, error)) steps.notebook = kNotebook;
  return steps;
}

std::string describe_next_steps(const NextSteps& steps) {
  std::string text = "Without a GPU, go on with:\n";
  const auto& runs = steps.recorded_runs;
  if (runs.size() == 1) {
    text += wrap_text("a run recorded on a GPU, with all it printed there: " + runs.front(), "  - ", "    ");
  } else if (!runs.empty()) {
    text += "  - runs recorded on a GPU, with all they printed there:\n";
    for (const std::string& run : runs) text += wrap_text(run, "    ", "    ");
  }
  if (steps.more_runs > 0)
    text += "    (" + std::to_string(steps.more_runs) + " more recorded beside " + (runs.size() == 1 ? "it" : "them") + ")\n";
  if (!steps.book_pages.empty()) {
    std::string pages;
    for (const std::string& page : steps.book_pages) pages += (pages.empty() ? "" : ", ") + page;
    text += wrap_text(std::string(steps.book_pages.size() == 1 ? "the chapter" : "the chapters") + " in the book: " + pages +
                     " (`make docs` renders the book, with the tables of those runs)",
                 "  - ", "    ");
  }
  // The notebook clones the repository on a hosted GPU: its link works even where this tree lacks it.
  const std::string notebook = steps.notebook.empty() ? kNotebook : steps.notebook;
  text += wrap_text(std::string("a free hosted GPU, a T4 on Colab or Kaggle: ") +
                   (steps.notebook.empty() ? "the notebook" : notebook) + ", on Colab at " + colab_link(notebook),
               "  - ", "    ");
  return text;
}

void explain_no_gpu(const char* program, const std::string& why) {
  std::string text = wrap_text(std::string(program) + ": no CUDA-capable GPU on this machine (" + why +
                              "); the GPU run is skipped, exit status " + std::to_string(kExitNoGpu) + ".",
                          "", "  ");
  if (std::getenv("PMPP_TOUR") == nullptr)
    text += describe_next_steps(find_next_steps(this_build().source_dir, {program}));
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace pmpp
