// What a program without a GPU points the student to: the right recorded run and book page for each
// kind of program, nothing that the tree lacks, and lines that fit 100 columns.
#include <catch2/catch_test_macros.hpp>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pmpp/gpu_diagnosis.hpp"
#include "pmpp/next_steps.hpp"

using namespace pmpp;
namespace fs = std::filesystem;

namespace {

// A source tree holding only what find_next_steps reads, removed again at the end of the test.
struct FakeTree {
  fs::path root = fs::temp_directory_path() / ("pmpp_next_steps_" + std::to_string(::getpid()));
  explicit FakeTree(bool with_notebook = true) {
    fs::remove_all(root);
    write("book/pages.txt", "# the reading order\nindex\nch07_convolution\nexercises_ch07\nch10_reduction\n"
                            "ch10_multi_gpu\nrecorded_runs generated\n");
    for (const char* run : {"ch07_convolution_8192_sweep.log", "ch07_convolution_8192_r4.log",
                            "ch07_convolution_8192_r2.log", "ch07_convolution_8192_r2.json", "ch10_01_simple_trace.txt"})
      write(std::string("results/gpu-a/") + run, "");
    for (const char* run : {"ch10_multi_gpu_mpi_2gpus.log", "ch10_multi_gpu_2gpus.log", "ch07_convolution_8192_r3.log"})
      write(std::string("results/gpu-b/") + run, "");
    if (with_notebook) write("notebooks/hosted_gpu.ipynb", "{}");
  }
  ~FakeTree() { fs::remove_all(root); }
  void write(const std::string& path, const std::string& text) const {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
  NextSteps find(const std::vector<std::string>& programs) const { return find_next_steps(root.string(), programs); }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("a stage program points to its chapter's plainest run, of the first GPU folder that has one",
          "[next_steps]") {
  const FakeTree tree;
  const NextSteps steps = tree.find({"ch07_03_tiled_halo"});
  CHECK(steps.recorded_runs == std::vector<std::string>{"results/gpu-a/ch07_convolution_8192_r2.log"});
  CHECK(steps.more_runs == 2);  // r4 and the sweep beside it; gpu-b's run is not counted
  CHECK(steps.book_pages == std::vector<std::string>{"book/ch07_convolution.md"});
  CHECK(steps.notebook == "notebooks/hosted_gpu.ipynb");
}

TEST_CASE("a program's own runs come first, and a longer program name's runs are not its own", "[next_steps]") {
  const FakeTree tree;
  const NextSteps ring = tree.find({"ch10_multi_gpu"});
  CHECK(ring.recorded_runs == std::vector<std::string>{"results/gpu-b/ch10_multi_gpu_2gpus.log"});
  CHECK(ring.more_runs == 0);
  CHECK(ring.book_pages == std::vector<std::string>{"book/ch10_multi_gpu.md"});
  const NextSteps mpi = tree.find({"ch10_multi_gpu_mpi"});
  CHECK(mpi.recorded_runs == std::vector<std::string>{"results/gpu-b/ch10_multi_gpu_mpi_2gpus.log"});
  CHECK(mpi.book_pages == std::vector<std::string>{"book/ch10_multi_gpu.md"});
}

TEST_CASE("without a recorded run, only the book page; outside the chapters, only the notebook", "[next_steps]") {
  const FakeTree tree;
  const NextSteps sum = tree.find({"ch10_matrix_sum"});  // a program of chapter 10 with no page of its own
  CHECK(sum.recorded_runs.empty());  // a trace is not a run's output
  CHECK(sum.book_pages == std::vector<std::string>{"book/ch10_reduction.md"});
  const NextSteps other = tree.find({"sanitizer_block_sum"});
  CHECK(other.recorded_runs.empty());
  CHECK(other.book_pages.empty());
  CHECK(other.notebook == "notebooks/hosted_gpu.ipynb");
}

TEST_CASE("for a tour, each run and page once, in the order of the programs", "[next_steps]") {
  const FakeTree tree;
  const NextSteps steps = tree.find({"ch07_convolution", "ch10_reduction", "ch07_01_basic", "ch10_multi_gpu"});
  CHECK(steps.recorded_runs == std::vector<std::string>{"results/gpu-a/ch07_convolution_8192_r2.log",
                                                        "results/gpu-b/ch10_multi_gpu_2gpus.log"});
  CHECK(steps.book_pages ==
        std::vector<std::string>{"book/ch07_convolution.md", "book/ch10_reduction.md", "book/ch10_multi_gpu.md"});
}

TEST_CASE("the block names every step on lines of at most 100 columns, the link unbroken", "[next_steps]") {
  const FakeTree tree;
  const std::string text = describe_next_steps(tree.find({"ch07_03_tiled_halo", "ch10_multi_gpu_mpi"}));
  for (const std::string& line : lines_of(text)) CHECK(line.size() <= 100);
  CHECK(text.find("results/gpu-a/ch07_convolution_8192_r2.log") != std::string::npos);
  CHECK(text.find("book/ch07_convolution.md, book/ch10_multi_gpu.md") != std::string::npos);
  CHECK(text.find("notebooks/hosted_gpu.ipynb,") != std::string::npos);
  const std::vector<std::string> lines = lines_of(text);
  CHECK(std::find(lines.begin(), lines.end(), colab_link("notebooks/hosted_gpu.ipynb")) != lines.end());
}

TEST_CASE("a tree without the notebook still gives its link, but names no file that is not there", "[next_steps]") {
  const FakeTree tree(false);
  const NextSteps steps = tree.find({"ch07_convolution"});
  CHECK(steps.notebook.empty());
  const std::string text = describe_next_steps(steps);
  CHECK(text.find("notebooks/hosted_gpu.ipynb,") == std::string::npos);
  CHECK(text.find(colab_link("notebooks/hosted_gpu.ipynb")) != std::string::npos);
}

TEST_CASE("in this repository, each chapter's side-by-side program finds a run and a page that exist",
          "[next_steps]") {
  const fs::path root(this_build().source_dir);
  for (const char* program : {"ch05_matmul", "ch07_convolution", "ch10_reduction", "ch10_matrix_sum"}) {
    INFO(program);
    const NextSteps steps = find_next_steps(root.string(), {program});
    REQUIRE(steps.recorded_runs.size() == 1);
    CHECK(fs::exists(root / steps.recorded_runs.front()));
    REQUIRE(steps.book_pages.size() == 1);
    CHECK(fs::exists(root / steps.book_pages.front()));
  }
  CHECK(find_next_steps(root.string(), {"ch07_convolution"}).recorded_runs.front() ==
        "results/nvidia-h100-80gb-hbm3/ch07_convolution_8192_r1.log");
}
