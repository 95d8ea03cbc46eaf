// PGM and PPM files (netpbm formats P2, P3, P5, P6), 8-bit. No library: the format is a short text
// header (magic, width, height, maxval, '#' comments anywhere before the pixels) and then the samples.
//
// Every problem becomes one pmpp::UsageError line "'<file>': <problem>", so a program can print it
// and exit with status 2. Sizes are checked against the bytes actually present before anything is
// allocated: a corrupt header claiming a 10^6 x 10^6 image costs nothing.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

#include "ch07_convolution/image_filter/image.hpp"
#include "pmpp/cli.hpp"

namespace pmpp::ch07 {

std::string Image::describe() const {
  std::ostringstream s;
  s << width << " x " << height << ", " << channels << (channels == 1 ? " channel" : " channels") << " ("
    << bytes() << " bytes)";
  return s.str();
}

namespace {

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }
bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

class PnmParser {
 public:
  PnmParser(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}

  Image parse() {
    if (bytes_.empty()) fail("empty file, not a PGM or PPM image");
    const int channels = magic();
    const std::uint64_t width = header_number("width", MAX_IMAGE_SIDE);
    const std::uint64_t height = header_number("height", MAX_IMAGE_SIDE);
    const std::uint64_t maxval = header_number("maxval", 65535);
    if (maxval > 255)
      fail("16-bit samples (maxval " + std::to_string(maxval) +
           ") are not supported; convert the image to 8 bits (maxval 255)");
    const std::uint64_t samples = width * height * static_cast<std::uint64_t>(channels);
    if (samples > MAX_IMAGE_BYTES)
      fail(shape(width, height, channels) + " = " + std::to_string(samples) + " samples exceeds the limit of " +
           std::to_string(MAX_IMAGE_BYTES));
    end_of_header();

    // Is the data there? Checked before allocating, so a corrupt header cannot ask for gigabytes.
    const std::size_t available = bytes_.size() - pos_;
    if (!ascii_ && available < samples)
      fail("truncated pixel data: " + shape(width, height, channels) + " needs " + std::to_string(samples) +
           " bytes, the file has " + std::to_string(available));
    // A plain sample is at least a digit and a separator (the last needs none): a lower bound.
    if (ascii_ && available < 2 * samples - 1)
      fail("truncated pixel data: " + shape(width, height, channels) + " needs " + std::to_string(samples) +
           " samples, the file is too short to hold them");

    Image image(static_cast<int>(width), static_cast<int>(height), channels);
    if (ascii_) {
      read_ascii_samples(image, maxval);
    } else {
      if (maxval == 255) {  // every byte is a valid sample
        std::memcpy(image.pixels.data(), bytes_.data() + pos_, samples);
      } else {
        for (std::size_t i = 0; i < samples; ++i)
          image.pixels[i] = sample(static_cast<unsigned char>(bytes_[pos_ + i]), maxval, i);
      }
    }
    // Bytes after the pixels are allowed: netpbm files may hold several images; we read the first.
    return image;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw UsageError("'" + name_ + "': " + problem); }

  static std::string shape(std::uint64_t w, std::uint64_t h, int c) {
    return std::to_string(w) + " x " + std::to_string(h) + " x " + std::to_string(c);
  }

  /// The whitespace-delimited word at @p at, for messages: non-printables as '?', cut after 16
  /// characters (with "...") so that a message stays one short line.
  std::string word_at(std::size_t at) const {
    std::string w;
    std::size_t i = at;
    for (; i < bytes_.size() && !is_space(bytes_[i]) && w.size() < 16; ++i)
      w += (bytes_[i] >= 0x20 && bytes_[i] < 0x7f) ? bytes_[i] : '?';
    if (i < bytes_.size() && !is_space(bytes_[i])) w += "...";
    return w;
  }

  /// "P5" (PGM) or "P6" (PPM) binary, "P2" or "P3" plain text: returns the channel count.
  int magic() {
    const std::string m = word_at(0);
    pos_ = 2;
    if (m == "P5" || m == "P2") {
      ascii_ = m == "P2";
      return 1;
    }
    if (m == "P6" || m == "P3") {
      ascii_ = m == "P3";
      return 3;
    }
    if (m == "P1" || m == "P4") fail("bitmap (PBM, " + m + ") files are not supported; use PGM (P2/P5) or PPM (P3/P6)");
    if (m == "P7") fail("PAM (P7) files are not supported; use PGM (P2/P5) or PPM (P3/P6)");
    fail("bad magic '" + m + "': not a PGM (P2/P5) or PPM (P3/P6) file");
  }

  /// Whitespace and '#' comments (to the end of the line) separate the header's fields.
  void skip_space_and_comments() {
    while (pos_ < bytes_.size()) {
      if (is_space(bytes_[pos_])) {
        ++pos_;
      } else if (bytes_[pos_] == '#') {
        while (pos_ < bytes_.size() && bytes_[pos_] != '\n' && bytes_[pos_] != '\r') ++pos_;
      } else {
        return;
      }
    }
  }

  /// A decimal header field in [1, max]: zero, a sign, junk, and values past @p max are errors.
  std::uint64_t header_number(const char* what, std::uint64_t max) {
    skip_space_and_comments();
    if (pos_ >= bytes_.size()) fail(std::string("truncated header: the file ends before the ") + what);
    const std::size_t start = pos_;
    if (bytes_[pos_] == '-' || bytes_[pos_] == '+')
      fail(std::string(what) + " must be a positive integer, got '" + word_at(start) + "'");
    if (!is_digit(bytes_[pos_]))
      fail(std::string("bad header: expected the ") + what + ", got '" + word_at(start) + "'");
    std::uint64_t value = 0;
    bool too_big = false;
    for (; pos_ < bytes_.size() && is_digit(bytes_[pos_]); ++pos_) {
      value = value * 10 + static_cast<std::uint64_t>(bytes_[pos_] - '0');
      too_big = too_big || value > max;
      if (too_big) value = max + 1;  // keeps the product of fields from overflowing
    }
    if (pos_ < bytes_.size() && !is_space(bytes_[pos_]) && bytes_[pos_] != '#')
      fail(std::string("bad header: expected the ") + what + ", got '" + word_at(start) + "'");
    if (too_big) fail(std::string(what) + " " + word_at(start) + " exceeds the limit of " + std::to_string(max));
    if (value == 0)
      fail(std::string(what) + " is 0; " +
           (std::string_view(what) == "maxval" ? "it must be at least 1" : "an image needs at least one pixel"));
    return value;
  }

  /// Binary files: exactly one whitespace character separates maxval from the pixels (a comment
  /// may come first; its line end is then the separator). Plain files: any whitespace.
  void end_of_header() {
    if (pos_ < bytes_.size() && bytes_[pos_] == '#')
      while (pos_ < bytes_.size() && bytes_[pos_] != '\n' && bytes_[pos_] != '\r') ++pos_;
    if (pos_ >= bytes_.size()) fail("truncated: the file ends after the header, no pixel data");
    ++pos_;  // header_number() guaranteed this is whitespace
  }

  std::uint8_t sample(unsigned value, std::uint64_t maxval, std::size_t i) const {
    if (value > maxval)
      fail("bad pixel data: sample " + std::to_string(i) + " is " + std::to_string(value) + ", above maxval " +
           std::to_string(maxval));
    // Rescale a maxval below 255 to the full 8-bit range, rounding to nearest.
    return static_cast<std::uint8_t>(maxval == 255 ? value : (value * 255 + maxval / 2) / maxval);
  }

  void read_ascii_samples(Image& image, std::uint64_t maxval) {
    const std::size_t samples = image.pixels.size();
    for (std::size_t i = 0; i < samples; ++i) {
      skip_space_and_comments();  // netpbm's own reader accepts comments between plain samples too
      if (pos_ >= bytes_.size())
        fail("truncated pixel data: " + std::to_string(i) + " of " + std::to_string(samples) + " samples");
      const std::size_t start = pos_;
      unsigned value = 0;
      for (; pos_ < bytes_.size() && is_digit(bytes_[pos_]); ++pos_)  // saturates: any overflow is > maxval
        value = std::min(value * 10 + static_cast<unsigned>(bytes_[pos_] - '0'), 65536u);
      if (pos_ == start || (pos_ < bytes_.size() && !is_space(bytes_[pos_]) && bytes_[pos_] != '#'))
        fail("bad pixel data: sample " + std::to_string(i) + " is '" + word_at(start) + "', not a number");
      if (value > maxval)  // the text as written: the value itself may have saturated
        fail("bad pixel data: sample " + std::to_string(i) + " is " + word_at(start) + ", above maxval " +
             std::to_string(maxval));
      image.pixels[i] = sample(value, maxval, i);
    }
  }

  std::string_view bytes_;
  std::string name_;
  std::size_t pos_ = 0;
  bool ascii_ = false;
};

}  // namespace

Image parse_pnm(const std::string& bytes, const std::string& name) { return PnmParser(bytes, name).parse(); }

Image read_pnm(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("'" + path + "': is a directory, not an image file");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UsageError("'" + path + "': cannot open: " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw UsageError("'" + path + "': read error: " + std::strerror(errno));
  return parse_pnm(bytes, path);
}

std::string format_pnm(const Image& image, PnmEncoding encoding) {
  if (image.channels != 1 && image.channels != 3)
    throw UsageError("a PNM file holds 1 (PGM) or 3 (PPM) channels; this image has " +
                     std::to_string(image.channels));
  if (image.pixels.size() != image.bytes()) throw UsageError("image pixel count does not match its shape");
  const bool ascii = encoding == PnmEncoding::ascii;
  const char* magic = image.channels == 1 ? (ascii ? "P2" : "P5") : (ascii ? "P3" : "P6");
  std::string out = std::string(magic) + "\n# pmpp-steps chapter 7\n" + std::to_string(image.width) + " " +
                    std::to_string(image.height) + "\n255\n";
  if (!ascii) {
    out.append(reinterpret_cast<const char*>(image.pixels.data()), image.pixels.size());
    return out;
  }
  std::string line;
  for (std::uint8_t v : image.pixels) {
    const std::string word = std::to_string(v);
    if (!line.empty() && line.size() + 1 + word.size() > 70) {  // the format asks for lines of at most 70
      out += line + '\n';
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + '\n';
}

void write_pnm(const std::string& path, const Image& image, PnmEncoding encoding) {
  const std::string bytes = format_pnm(image, encoding);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw UsageError("'" + path + "': cannot write: " + std::strerror(errno));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) throw UsageError("'" + path + "': write failed: " + std::strerror(errno));
}

}  // namespace pmpp::ch07
