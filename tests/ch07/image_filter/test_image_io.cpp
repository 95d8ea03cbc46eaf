// PGM/PPM reading and writing: round trips in every encoding, header comments, and every kind of bad
// file, each of which must give one line naming the file and the problem.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "ch07_convolution/image_filter/image.hpp"
#include "pmpp/cli.hpp"

using namespace pmpp::ch07;

namespace {

/// A file in the temporary directory, removed at the end of the scope. The process id keeps test
/// cases that CTest runs in parallel out of each other's way.
class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() /
               ("pmpp_ch07_" + std::to_string(static_cast<long>(getpid())) + "_" + name))
                  .string()) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }
  void write(const std::string& bytes) const {
    std::ofstream(path_, std::ios::binary) << bytes;
  }

 private:
  std::string path_;
};

/// A picture whose every sample differs from its neighbours', so a swapped row, column or channel shows.
Image numbered(int w, int h, int c) {
  Image image(w, h, c);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<std::uint8_t>((i * 37 + i / 7) & 0xFF);
  return image;
}

bool same(const Image& a, const Image& b) {
  return a.width == b.width && a.height == b.height && a.channels == b.channels && a.pixels == b.pixels;
}

/// The message parse_pnm throws for @p bytes (empty if it does not throw).
std::string parse_error(const std::string& bytes) {
  try {
    parse_pnm(bytes, "bad.pnm");
  } catch (const pmpp::UsageError& e) {
    return e.what();
  }
  return "";
}

const std::string kPixels12(12, 'x');  // 2 x 2 RGB or 4 x 3 gray worth of binary samples

}  // namespace

TEST_CASE("binary and plain PGM/PPM round-trip through memory", "[image][io]") {
  for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {1, 13}, {13, 1}, {31, 17}, {64, 3}})
    for (int c : {1, 3})
      for (auto encoding : {PnmEncoding::binary, PnmEncoding::ascii}) {
        DYNAMIC_SECTION(w << "x" << h << "x" << c << (encoding == PnmEncoding::ascii ? " plain" : " binary")) {
          const Image image = numbered(w, h, c);
          const std::string bytes = format_pnm(image, encoding);
          const char* magic = c == 1 ? (encoding == PnmEncoding::ascii ? "P2" : "P5")
                                     : (encoding == PnmEncoding::ascii ? "P3" : "P6");
          CHECK(bytes.substr(0, 2) == magic);
          CHECK(same(parse_pnm(bytes, "memory"), image));
        }
      }
}

TEST_CASE("round trip through a file on disk", "[image][io]") {
  const TempFile file("round_trip.ppm");
  const Image image = numbered(37, 23, 3);
  write_pnm(file.path(), image);
  CHECK(same(read_pnm(file.path()), image));
  // The binary file is the header plus exactly the samples.
  CHECK(std::filesystem::file_size(file.path()) == format_pnm(image).size());
  CHECK(format_pnm(image).size() > image.bytes());

  const TempFile plain("round_trip.pgm");
  const Image gray = numbered(5, 9, 1);
  write_pnm(plain.path(), gray, PnmEncoding::ascii);
  CHECK(same(read_pnm(plain.path()), gray));
}

TEST_CASE("plain files keep lines to 70 characters", "[image][io]") {
  const std::string text = format_pnm(numbered(100, 20, 3), PnmEncoding::ascii);
  std::size_t longest = 0, start = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') {
      longest = std::max(longest, i - start);
      start = i + 1;
    }
  CHECK(longest <= 70);
  CHECK(longest > 60);  // lines are filled, not one sample each
}

TEST_CASE("comments in the header are skipped wherever they appear", "[image][io]") {
  // 2 x 2 RGB: the samples are 'x' (120) except the last pixel's blue, 'y' (121).
  const std::string pixels = std::string(11, 'x') + "y";
  const std::vector<std::string> headers{
      "P6\n2 2\n255\n",
      "P6\n# a comment line\n2 2\n255\n",
      "P6 # after the magic\n2 # after the width\n2\n# before maxval\n255\n",
      "P6\n#\n#\n2\t2\r\n255\n",
      "P6\n2 2\n255# a comment ending the header: its line end is the separator\n",
  };
  for (const auto& header : headers) {
    INFO(header);
    const Image image = parse_pnm(header + pixels, "commented.ppm");
    CHECK(image.width == 2);
    CHECK(image.height == 2);
    CHECK(image.channels == 3);
    CHECK(image.at(1, 1, 2) == 'y');
    CHECK(image.at(0, 0, 0) == 'x');
  }
  // Plain samples may be separated by comments too, as netpbm's own reader allows.
  const Image plain = parse_pnm("P2 2 1 255 # first row\n 7 # then\n 9\n", "plain.pgm");
  CHECK(plain.pixels == std::vector<std::uint8_t>{7, 9});
}

TEST_CASE("a maxval below 255 is rescaled to the full range", "[image][io]") {
  const Image image = parse_pnm("P2\n4 1\n15\n0 8 15 1\n", "dim.pgm");
  // round(v * 255 / 15) = 17 v
  CHECK(image.pixels == std::vector<std::uint8_t>{0, 136, 255, 17});
  const Image binary = parse_pnm(std::string("P5 3 1 3\n") + '\0' + '\1' + '\3', "dim.pgm");
  CHECK(binary.pixels == std::vector<std::uint8_t>{0, 85, 255});
}

TEST_CASE("bytes after the pixels are ignored (netpbm files may hold several images)", "[image][io]") {
  const Image image = parse_pnm("P5\n2 1\n255\nABtrailing", "two.pgm");
  CHECK(image.pixels == std::vector<std::uint8_t>{'A', 'B'});
}

TEST_CASE("every malformed file gives one line naming the file and the problem", "[image][io]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "empty file"},
      {"hello world", "bad magic 'hello'"},
      {"P9\n2 2\n255\n" + kPixels12, "bad magic 'P9'"},
      {"P612 2\n255\n", "bad magic 'P612'"},
      {"P4\n2 2\n", "bitmap (PBM, P4)"},
      {"P1\n2 2\n", "bitmap (PBM, P1)"},
      {"P7\nWIDTH 2\n", "PAM (P7)"},
      {"P6", "the file ends before the width"},
      {"P6\n2", "the file ends before the height"},
      {"P6\n2 2\n", "the file ends before the maxval"},
      {"P6\n# only a comment\n", "the file ends before the width"},
      {"P6\nabc 2\n255\n", "expected the width, got 'abc'"},
      {"P6\n2x 2\n255\n", "expected the width, got '2x'"},
      {"P6\n2 2.5\n255\n", "expected the height, got '2.5'"},
      {"P6\n-2 2\n255\n", "width must be a positive integer, got '-2'"},
      {"P6\n2 -3\n255\n", "height must be a positive integer, got '-3'"},
      {"P6\n+2 2\n255\n", "width must be a positive integer"},
      {"P6\n0 2\n255\n", "width is 0"},
      {"P6\n2 0\n255\n", "height is 0"},
      {"P6\n2 2\n0\n", "maxval is 0"},
      {"P6\n2000000 2\n255\n", "width 2000000 exceeds the limit of 1048576"},
      {"P6\n2 99999999999999999999999\n255\n", "height 9999999999999999... exceeds the limit of 1048576"},
      {"P6\n1048576 1048576\n255\n", "exceeds the limit of 17179869184"},
      {"P6\n2 2\n65535\n", "16-bit samples (maxval 65535) are not supported"},
      {"P5\n2 2\n256\n", "16-bit samples (maxval 256)"},
      {"P6\n2 2\n70000\n", "maxval 70000 exceeds the limit of 65535"},
      {"P6\n2 2\n255", "no pixel data"},
      {"P6\n2 2\n255\n", "truncated pixel data: 2 x 2 x 3 needs 12 bytes, the file has 0"},
      {"P6\n2 2\n255\n" + std::string(11, 'x'), "needs 12 bytes, the file has 11"},
      {"P6\n40000 40000\n255\n" + kPixels12, "needs 4800000000 bytes, the file has 12"},
      {"P5\n2 1\n3\nA\1", "sample 0 is 65, above maxval 3"},
      {"P2\n3 1\n255\n1 2\n", "truncated pixel data"},
      {"P2\n3 1\n255\n1 2    \n", "truncated pixel data: 2 of 3 samples"},
      {"P2\n2 1\n255\n1 x\n", "sample 1 is 'x', not a number"},
      {"P2\n2 1\n255\n1 2x\n", "sample 1 is '2x', not a number"},
      {"P2\n2 1\n255\n1 -2\n", "sample 1 is '-2', not a number"},
      {"P3\n1 1\n255\n1 2 256\n", "sample 2 is 256, above maxval 255"},
      {"P2\n2 1\n100\n1 99999999999\n", "sample 1 is 99999999999, above maxval 100"},
  };
  for (const auto& [bytes, expected] : cases) {
    const std::string message = parse_error(bytes);
    INFO("file: " << bytes.substr(0, 40));
    INFO("message: " << message);
    CHECK(message.rfind("'bad.pnm': ", 0) == 0);
    CHECK(message.find(expected) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("missing files, directories and binary garbage give one-line errors", "[image][io]") {
  const TempFile missing("does_not_exist.ppm");
  try {
    read_pnm(missing.path());
    FAIL("no error for a missing file");
  } catch (const pmpp::UsageError& e) {
    const std::string message = e.what();
    CHECK(message == "'" + missing.path() + "': cannot open: No such file or directory");
  }
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK_THROWS_AS(read_pnm(dir), pmpp::UsageError);

  const TempFile garbage("garbage.ppm");
  garbage.write(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  try {
    read_pnm(garbage.path());
    FAIL("no error for a PNG file");
  } catch (const pmpp::UsageError& e) {
    const std::string message = e.what();
    CHECK(message.find("bad magic '?PNG'") != std::string::npos);  // non-printables shown as '?'
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find('\r') == std::string::npos);
  }
}

TEST_CASE("the committed test files read as intended", "[image][io]") {
  // The data folder sits next to this file; CMake compiles sources by absolute path.
  const std::string data = (std::filesystem::path(__FILE__).parent_path() / "data").string();
  const Image tiny = read_pnm(data + "/tiny.pgm");
  CHECK(tiny.width == 7);
  CHECK(tiny.height == 5);
  CHECK(tiny.channels == 1);
  CHECK(tiny.at(0, 1, 0) == 10);
  CHECK(tiny.at(3, 5, 0) == 255);
  CHECK(tiny.at(4, 6, 0) == 1);
  for (const char* bad : {"truncated.ppm", "negative_height.pgm", "bad_magic.ppm"}) {
    INFO(bad);
    CHECK_THROWS_AS(read_pnm(data + "/" + bad), pmpp::UsageError);
  }
}

TEST_CASE("writing fails cleanly for 2- and 4-channel images and unwritable paths", "[image][io]") {
  CHECK_THROWS_AS(format_pnm(numbered(3, 3, 2)), pmpp::UsageError);
  CHECK_THROWS_AS(format_pnm(numbered(3, 3, 4)), pmpp::UsageError);
  CHECK_THROWS_AS(write_pnm("/nonexistent-directory/out.ppm", numbered(3, 3, 3)), pmpp::UsageError);
}
