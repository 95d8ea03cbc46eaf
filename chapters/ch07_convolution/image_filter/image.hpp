/// @file image.hpp
/// @brief Chapter 7 applied to pictures: 8-bit images with 1 to 4 interleaved channels, named masks
/// (box, gaussian, sharpen, edge) of any odd width and height, PGM/PPM files, the CPU reference and
/// the GPU launcher. Plain C++ (no kernel syntax), so tests and the program are ordinary .cpp files.
///
/// Conventions (they differ from the chapter's stages on purpose, see each line):
/// - an image is `height` rows of `width` pixels of `channels` bytes, channels interleaved
///   (R, G, B, R, G, B, ...): sample (row, col, c) is `pixels[(row * width + col) * channels + c]`,
///   indexed in 64 bits so images over 2^31 bytes work;
/// - the mask is `mask_width` x `mask_height` floats, both odd, row-major, **not** flipped, applied
///   to every channel on its own:
///   `out(row, col, c) = sum_{i < mask_height, j < mask_width} M[i][j] * in(row - ry + i, col - rx + j, c)`
///   with rx = mask_width / 2 and ry = mask_height / 2;
/// - borders are **clamp-to-edge**: a tap outside the image reads the nearest edge pixel. The text's
///   zero ghost cells suit its float arrays, but on a photograph they pull a blur towards black near
///   the frame and make the edge filter outline the frame itself; clamping keeps a flat image flat;
/// - the float sum is clamped to [0, 255] and rounded to the nearest integer, ties to even
///   (to_pixel() in image_pixel.hpp, the same function on host and device).
///
/// Why the GPU result can be checked bit for bit against the CPU: both add the taps in the same
/// order (mask rows top to bottom, each row left to right), each step one fused multiply-add
/// rounded once (`std::fma` on the host, `fmaf` on the device: both IEEE-754 correctly rounded), so
/// the two float sums are identical, and then both call the same to_pixel().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pmpp/launch_config.hpp"

namespace pmpp::ch07 {

using pmpp::Dim3;
using pmpp::LaunchConfig;

inline constexpr int MAX_IMAGE_CHANNELS = 4;
/// Largest width or height accepted from a file or the command line; a header claiming more is
/// treated as corrupt rather than as a request for terabytes of memory.
inline constexpr int MAX_IMAGE_SIDE = 1 << 20;
/// Largest image, in bytes (width x height x channels), that the program will allocate.
inline constexpr std::uint64_t MAX_IMAGE_BYTES = std::uint64_t{1} << 34;
/// Largest mask side: 31 x 31 floats is 3.8 KiB of the 64 KiB constant memory.
inline constexpr int MAX_MASK_DIM = 31;

/// An 8-bit image, channels interleaved (see the file comment).
struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;

  Image() = default;
  /// A black image of this shape.
  Image(int w, int h, int c)
      : width(w), height(h), channels(c), pixels(static_cast<std::size_t>(w) * h * c, 0) {}

  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels; }
  std::size_t bytes() const { return row_bytes() * height; }
  std::size_t index(int row, int col, int c) const {
    return (static_cast<std::size_t>(row) * width + col) * channels + c;
  }
  std::uint8_t at(int row, int col, int c) const { return pixels[index(row, col, c)]; }
  std::uint8_t& at(int row, int col, int c) { return pixels[index(row, col, c)]; }
  /// "384 x 256, 3 channels (294912 bytes)"
  std::string describe() const;
};

/// A mask_width x mask_height filter, row-major: weight (i, j) is `weights[i * width + j]`.
struct Mask {
  std::string name;
  int width = 0;
  int height = 0;
  std::vector<float> weights;

  float at(int i, int j) const { return weights[static_cast<std::size_t>(i) * width + j]; }
  double sum() const;
  /// "gaussian 5 x 3 (width x height), weights sum to 1"
  std::string describe() const;
  /// The weights as text, one mask row per line (for masks up to 9 x 9; larger ones say so).
  std::string table() const;
};

// ---- PGM / PPM files (image_io.cpp) -------------------------------------------------------------

/// Binary (P5 gray, P6 colour) or plain-text (P2, P3) samples.
enum class PnmEncoding { binary, ascii };

/// Read a PGM (P2, P5) or PPM (P3, P6) file with maxval <= 255. '#' comments in the header are
/// skipped; a maxval below 255 is rescaled to 0..255.
/// @throws pmpp::UsageError with one line naming @p path and the problem: missing or unreadable
///         file, bad magic, bad or absurd header fields, 16-bit samples, short or bad pixel data.
Image read_pnm(const std::string& path);
/// The same, from the bytes of a file; @p name is what error messages call it.
Image parse_pnm(const std::string& bytes, const std::string& name);
/// The bytes of @p image as a PGM (1 channel) or PPM (3 channels) file.
/// @throws pmpp::UsageError for any other channel count (PNM has no 2- or 4-channel form).
std::string format_pnm(const Image& image, PnmEncoding encoding = PnmEncoding::binary);
/// Write format_pnm() to @p path. @throws pmpp::UsageError if the file cannot be written.
void write_pnm(const std::string& path, const Image& image, PnmEncoding encoding = PnmEncoding::binary);

// ---- Masks and the built-in picture (image_filters.cpp, image_picture.cpp) -----------------------

/// "box", "gaussian", "sharpen", "edge".
const std::vector<std::string>& filter_names();
/// A named mask. Box and gaussian take any odd size (0 for a side means: the other side's size, or
/// 5 if both are 0); sharpen and edge are 3 x 3 only.
/// - box: every weight 1 / (width x height), an average;
/// - gaussian: the outer product of binomial rows (1 2 1, 1 4 6 4 1, ...), each normalised to 1:
///   the discrete Gaussian of variance (side - 1) / 4, separable, weights sum to 1;
/// - sharpen: 5 at the centre, -1 at the four neighbours (sum 1: flat areas unchanged);
/// - edge: 8 at the centre, -1 around it (sum 0: flat areas go black, edges light up).
/// @throws pmpp::UsageError for an unknown name, an even or out-of-range side, or a size for a
///         fixed-size mask.
Mask make_filter(const std::string& name, int mask_width = 0, int mask_height = 0);
/// @throws pmpp::UsageError unless both sides are odd, in [1, MAX_MASK_DIM], and the weights fill them.
void validate_mask(const Mask& mask);

/// A deterministic picture of this shape (integer arithmetic only: identical on every machine):
/// colour gradients, a disc, a rectangle outline, a checkerboard, fine stripes and a diagonal line,
/// so that blurring, sharpening and edges are all visible. Channels: 1 gray, 2 gray + alpha,
/// 3 RGB, 4 RGB + alpha.
Image test_picture(int width, int height, int channels);

// ---- CPU reference (image_reference.cpp) --------------------------------------------------------

/// The checker: the definition in the file comment, rows spread over the CPU's cores.
Image filter_image_reference(const Image& in, const Mask& mask);

// ---- GPU (image_filter_kernel.cu) ---------------------------------------------------------------

/// One filtered image in device memory.
struct ImageFilterArgs {
  const std::uint8_t* in = nullptr;  ///< device, width * height * channels bytes
  std::uint8_t* out = nullptr;       ///< device, the same size; must not overlap @p in
  int width = 0;
  int height = 0;
  int channels = 0;
  int mask_width = 0;                ///< must match the last upload_image_mask()
  int mask_height = 0;
};

/// Copy @p mask to the kernel's `__constant__` array (from host memory). Call before filter_image().
void upload_image_mask(const Mask& mask);
/// Enqueue the image kernel on the default stream; checks the launch; does not synchronize.
/// @throws std::invalid_argument for a shape the kernel does not handle (checked before launching).
LaunchConfig filter_image(const ImageFilterArgs& args);

}  // namespace pmpp::ch07
