/// @file png.hpp
/// @brief Encode an 8-bit gray or RGB raster as PNG, and bytes as base64, so that a figure can embed
/// a real picture (`<image href="data:image/png;base64,...">`) without any image library.
///
/// The PNG is valid but not compressed: its zlib stream uses "stored" blocks only, so the encoder
/// is a few lines of framing and two checksums instead of a deflate implementation.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace pmpp::book {

namespace png_detail {
inline std::uint32_t crc32(const std::string& bytes, std::size_t first, std::size_t count) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = first; i < first + count; ++i) c = table[(c ^ static_cast<std::uint8_t>(bytes[i])) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

inline void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xFF);
}

inline void chunk(std::string& png, const char* type, const std::string& data) {
  put32(png, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = png.size();
  png += type;
  png += data;
  put32(png, crc32(png, start, png.size() - start));  // the CRC covers type and data
}
}  // namespace png_detail

/// PNG bytes of a @p width x @p height image with @p channels 1 (gray) or 3 (RGB), rows top to
/// bottom, channels interleaved.
inline std::string encode_png(const std::vector<std::uint8_t>& pixels, int width, int height, int channels) {
  using namespace png_detail;
  if (channels != 1 && channels != 3) throw std::invalid_argument("encode_png: 1 or 3 channels only");
  if (width < 1 || height < 1) throw std::invalid_argument("encode_png: empty image");
  const std::size_t row = static_cast<std::size_t>(width) * channels;
  if (pixels.size() != row * height) throw std::invalid_argument("encode_png: pixel count does not match the shape");

  std::string raw;  // each scanline starts with its filter type, 0: none
  for (int y = 0; y < height; ++y) {
    raw += '\0';
    raw.append(reinterpret_cast<const char*>(pixels.data()) + y * row, row);
  }
  std::string z = "\x78\x01";  // zlib header: deflate, 32 KiB window, no dictionary
  for (std::size_t pos = 0; pos < raw.size(); pos += 65535) {
    const std::size_t n = std::min<std::size_t>(65535, raw.size() - pos);
    z += static_cast<char>(pos + n >= raw.size() ? 1 : 0);  // BFINAL on the last block, BTYPE 00 (stored)
    z += static_cast<char>(n & 0xFF);
    z += static_cast<char>(n >> 8);
    z += static_cast<char>(~n & 0xFF);
    z += static_cast<char>((~n >> 8) & 0xFF);
    z.append(raw, pos, n);
  }
  std::uint32_t a = 1, b = 0;  // Adler-32 of the uncompressed data
  for (char ch : raw) {
    a = (a + static_cast<std::uint8_t>(ch)) % 65521;
    b = (b + a) % 65521;
  }
  put32(z, (b << 16) | a);

  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(width));
  put32(ihdr, static_cast<std::uint32_t>(height));
  ihdr += static_cast<char>(8);                     // bits per sample
  ihdr += static_cast<char>(channels == 3 ? 2 : 0);  // colour type: truecolour or gray
  ihdr += std::string(3, '\0');                     // deflate, adaptive filtering, no interlace

  std::string png = "\x89PNG\r\n\x1a\n";
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

inline std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (static_cast<std::uint8_t>(bytes[i]) << 16) | (static_cast<std::uint8_t>(bytes[i + 1]) << 8) |
                            static_cast<std::uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += digits[(v >> shift) & 63];
  }
  if (const std::size_t left = bytes.size() - i; left > 0) {
    std::uint32_t v = static_cast<std::uint8_t>(bytes[i]) << 16;
    if (left == 2) v |= static_cast<std::uint8_t>(bytes[i + 1]) << 8;
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += left == 2 ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace pmpp::book
