// ch07_image_filter: filter a picture on the GPU with a named mask, check every output byte against
// the CPU reference, time the kernel next to NPP (where this build has it), and write the result as
// PGM/PPM.
//
//   ch07_image_filter --image in.ppm --filter sharpen --out out.ppm
//   ch07_image_filter --filter box --mask-width 9 --mask-height 3 --out blurred.ppm   (built-in picture)
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "ch07_convolution/image_filter/image.hpp"
#include "ch07_convolution/image_filter/image_npp.hpp"
#include "ch07_convolution/npp_support.hpp"
#include "pmpp/check.hpp"
#include "pmpp/device_buffer.hpp"
#include "pmpp/program.hpp"
#include "pmpp/report.hpp"
#include "pmpp/timing.hpp"
#include "pmpp/words.hpp"

using namespace pmpp;
using namespace pmpp::ch07;

namespace {

constexpr const char* kProgram = "ch07_image_filter";
constexpr int kPictureWidth = 384, kPictureHeight = 256, kPictureChannels = 3;  // non-square on purpose

struct ImageOptions {
  std::string image, filter = "gaussian", out, json;
  int mask_width = 0, mask_height = 0;
  int width = 0, height = 0, channels = 0;  ///< built-in picture; 0: the defaults above
  int repetitions = 25;
  bool ascii = false;
};

void add_image_options(Cli& cli, ImageOptions& o) {
  cli.option("--image", o.image, "PGM or PPM file to filter (P2, P3, P5, P6; 8-bit); default: the built-in picture")
      .option("--filter", o.filter, "the mask", filter_names())
      .option("--mask-width", o.mask_width, "box/gaussian mask width, odd (0: the height, or 5)", 0, MAX_MASK_DIM)
      .option("--mask-height", o.mask_height, "box/gaussian mask height, odd (0: the width, or 5)", 0, MAX_MASK_DIM)
      .option("--out", o.out, "write the filtered picture here (.pgm for 1 channel, .ppm for 3)")
      .flag("--ascii", o.ascii, "write plain-text P2/P3 instead of binary P5/P6")
      .option("--width", o.width, "built-in picture width (0: 384)", 0, MAX_IMAGE_SIDE)
      .option("--height", o.height, "built-in picture height (0: 256)", 0, MAX_IMAGE_SIDE)
      .option("--channels", o.channels, "built-in picture channels: 1 gray, 2 +alpha, 3 RGB, 4 RGBA (0: 3)", 0,
              MAX_IMAGE_CHANNELS)
      .option("--reps", o.repetitions, "timed repetitions (the median is reported)", 1, 10000)
      .option("--json", o.json, "also write the tables as JSON to this file (a run record)");
}

/// Reject what the option ranges cannot express. Everything here runs before any GPU work.
void validate_image_options(const ImageOptions& o) {
  if (!o.image.empty() && (o.width || o.height || o.channels))
    throw UsageError("--width, --height and --channels shape the built-in picture; a file given with --image has its own");
  const double bytes = static_cast<double>(o.width ? o.width : kPictureWidth) * (o.height ? o.height : kPictureHeight) *
                       (o.channels ? o.channels : kPictureChannels);
  if (o.image.empty() && bytes > static_cast<double>(MAX_IMAGE_BYTES))
    throw UsageError("the built-in picture would be " + std::to_string(static_cast<long long>(bytes)) +
                     " bytes; the limit is " + std::to_string(MAX_IMAGE_BYTES));
}

std::string lower_extension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& ch : ext) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  return ext;
}

/// PNM holds 1 or 3 channels, and a .pgm file holding colour would confuse every viewer: say so now,
/// not after the GPU run.
void check_out_path(const ImageOptions& o, const Image& image) {
  if (o.out.empty()) return;
  if (image.channels != 1 && image.channels != 3)
    throw UsageError("--out: a PGM/PPM file holds 1 or 3 channels; this picture has " +
                     std::to_string(image.channels) + " (use --channels 1 or 3)");
  const std::string ext = lower_extension(o.out), want = image.channels == 1 ? ".pgm" : ".ppm";
  if ((ext == ".pgm" || ext == ".ppm") && ext != want)
    throw UsageError("--out '" + o.out + "': a " + std::to_string(image.channels) + "-channel picture is written as " +
                     want + ", not " + ext);
}

/// Sample index -> "(row 3, col 17, channel 2)".
std::string locate(const Image& image, std::size_t index) {
  const std::size_t pixel = index / image.channels;
  return "(row " + std::to_string(pixel / image.width) + ", col " + std::to_string(pixel % image.width) +
         ", channel " + std::to_string(index % image.channels) + ")";
}

/// What bounds the measured time: the two floors no kernel can beat (compulsory DRAM traffic, and the
/// FMAs at the peak FP32 rate), each as a share of it, and which of them is the higher.
std::vector<std::string> explain_limit(const Image& input, const Mask& mask, const DeviceInfo& device,
                                       double compulsory_bytes, double measured_ms) {
  std::vector<std::string> lines;
  const double dram_ms = device.ms_at_peak_dram(compulsory_bytes);
  const int taps = mask.width * mask.height;
  const double fma_ms = device.ms_at_peak_fp32(2.0 * static_cast<double>(input.bytes()) * taps);
  const auto share = [&](double ms) { return fixed(100.0 * ms / measured_ms, 0) + "%"; };
  std::string floors = "floors: DRAM " + fixed(dram_ms, 4) + " ms (2 B/sample at " +
                       fixed(device.peak_dram_gbps, 0) + " GB/s) is " + share(dram_ms) + " of the measured time";
  if (fma_ms > 0)
    floors += "; FP32 " + fixed(fma_ms, 4) + " ms (" + std::to_string(taps) + " FMAs/sample at " +
              fixed(device.peak_fp32_gflops / 1000.0, 1) + " TFLOP/s, peak clock) is " + share(fma_ms);
  lines.push_back(floors + ".");
  if (fma_ms <= 0) return lines;
  if (fma_ms >= dram_ms)
    lines.push_back("The FP32 floor is the higher one: the " + std::to_string(taps) +
                    " FMAs per sample (each sample its own chain, in the CPU reference's order) would fill " +
                    share(fma_ms) +
                    " of the time at the peak rate; the instructions around them (bytes to float planes, "
                    "shared-memory loads, rounding, byte stores) take the rest.");
  else
    lines.push_back("With " + std::to_string(taps) + " taps per sample the compulsory DRAM traffic is the higher "
                    "floor; the kernel reaches " + share(dram_ms) + " of it.");
  return lines;
}

/// @p text wrapped at the terminal's width, continuation lines under the text after @p label.
void print_labelled(const std::string& label, const std::string& text) {
  std::fputs(wrap_text(text, label, std::string(label.size(), ' ')).c_str(), stdout);
}

/// What a filter under test reads and writes: the picture and its reference on the host, and the
/// device buffers every filter of the program shares.
struct Buffers {
  const Image& input;
  const Image& reference;
  const DeviceBuffer<std::uint8_t>& d_in;
  DeviceBuffer<std::uint8_t>& d_out;
};

/// Run @p filter (which enqueues one filtering of d_in into d_out) twice and check each output
/// against the reference within @p levels, printing one line per run and one for the input; the
/// first run's output goes to @p result unless it is null. Every byte value is a valid pixel, so no
/// single poison value can expose an output the filter never wrote. Two runs can: a skipped byte
/// keeps 0x00 in one and 0xFF in the other, and while 2 x @p levels < 255 at most one of those is
/// within @p levels of the reference.
bool check_twice(const Buffers& b, const std::string& who, int levels, const std::function<void()>& filter,
                 Image* result = nullptr) {
  bool ok = true;
  const Tolerance tolerance{static_cast<double>(levels), 0};
  for (const int poison : {0x00, 0xFF}) {
    CUDA_CHECK(cudaMemset(b.d_out.data(), poison, b.d_out.bytes()));
    filter();
    CUDA_CHECK(cudaDeviceSynchronize());
    Image got(b.input.width, b.input.height, b.input.channels);
    got.pixels = b.d_out.to_host();
    const CheckResult check = compare(got.pixels, b.reference.pixels, tolerance);
    char label[64];
    std::snprintf(label, sizeof label, "%scheck (output filled with 0x%02X first): ", who.c_str(), poison);
    print_labelled(label, check.summary());
    if (!check.ok() && !check.first_bad.empty())
      std::printf("  first difference at %s\n", locate(b.input, check.first_bad.front()).c_str());
    ok = ok && check.ok();
    if (poison == 0x00 && result != nullptr) *result = std::move(got);
  }
  const bool input_unchanged = b.d_in.to_host() == b.input.pixels;
  std::printf("%scheck (input unchanged on the device): %s\n", who.c_str(), input_unchanged ? "PASS" : "FAIL");
  return ok && input_unchanged;
}

}  // namespace

int main(int argc, char** argv) {
  return guarded_main(kProgram, [&] {
    ImageOptions o;
    Cli cli(kProgram,
            "Filter a picture on the GPU: interleaved 8-bit channels, the same mask on each, non-square masks, "
            "clamp-to-edge borders, results clamped to [0, 255]. Checks every output byte against the CPU "
            "reference (bit-exact), times the kernel next to NPP's nppiFilterBorder32f (checked within one level) "
            "where this build has NPP, and writes the result if --out is given.");
    add_image_options(cli, o);
    if (!cli.parse(argc, argv)) return int{kExitPass};
    validate_image_options(o);

    // Files and masks are checked before the GPU: a bad file is a usage error on any machine.
    const Image input = o.image.empty()
                            ? test_picture(o.width ? o.width : kPictureWidth, o.height ? o.height : kPictureHeight,
                                           o.channels ? o.channels : kPictureChannels)
                            : read_pnm(o.image);
    const Mask mask = make_filter(o.filter, o.mask_width, o.mask_height);
    check_out_path(o, input);

    print_labelled(std::string(kProgram) + ": ",
                   "2D convolution of an 8-bit picture: mask in constant memory, input tiles in shared memory, "
                   "register tiles (PMPP Fig 7.9 and 7.12 applied to images)");
    print_labelled("picture: ", (o.image.empty() ? std::string("built-in test picture") : "'" + o.image + "'") + ", " +
                                    input.describe());
    print_labelled("mask:    ", mask.describe());
    std::fputs(mask.table().c_str(), stdout);
    print_labelled("borders: ", "clamp-to-edge; each channel filtered on its own; sums clamped to [0, 255], rounded "
                                "to nearest (ties to even)");
    std::printf("\n");
    RunRecord record(kProgram, command_line(argc, argv), o.json);
    record.set_problem(input.describe() + ", " + mask.describe());
    if (!gpu_or_explain(kProgram)) return record.finish(kExitNoGpu);

    const DeviceInfo device = query_device();
    record.set_device(device.name);
    print_labelled("device:  ", device.summary());
    const Image reference = filter_image_reference(input, mask);

    upload_image_mask(mask);
    DeviceBuffer<std::uint8_t> d_in(input.pixels), d_out(input.bytes());
    const ImageFilterArgs args{d_in.data(), d_out.data(), input.width, input.height, input.channels, mask.width,
                               mask.height};
    const Buffers buffers{input, reference, d_in, d_out};
    LaunchConfig config;
    Image result;
    const bool ok = check_twice(buffers, "", 0, [&] { config = filter_image(args); }, &result);
    std::printf("\n");

    // NPP, checked the same way and timed with the same timer. It sums in its own order and may round
    // differently, so it gets a tolerance (npp_tolerance_levels(), derived in image_npp.cpp).
    std::unique_ptr<NppImageFilter> npp;
    bool npp_ok = false;
    if (!npp_available()) {
      print_labelled("NPP: ", "skipped: " + npp_description());
    } else {
      try {
        npp = std::make_unique<NppImageFilter>(input.width, input.height, input.channels, mask);
        const int levels = npp_tolerance_levels(mask);
        print_labelled("NPP: ", npp->details() + "; checked within " + count_of(levels, "level") +
                                    " of the 8-bit output (NPP sums in its own order and rounds its own way)");
        npp_ok = check_twice(buffers, "NPP ", levels, [&] { npp->run(d_in.data(), d_out.data()); });
      } catch (const std::runtime_error& e) {  // NPP refused this image: say so, not a failed check
        print_labelled("NPP: ", std::string("could not run: ") + e.what());
        npp.reset();
      }
      std::printf("\n");
    }

    auto dims = [](Dim3 d) {
      return std::to_string(d.x) + "x" + std::to_string(d.y) + (d.z > 1 ? "x" + std::to_string(d.z) : "");
    };
    // The kernel's name is long (convolution_2D_const_mem_image_kernel): its row is called "kernel".
    std::printf("kernel: convolution_2D_const_mem_image_kernel; mask %s %dx%d\n", mask.name.c_str(), mask.width,
                mask.height);
    // Compulsory traffic: every input byte read once, every output byte written once.
    const double bytes = 2.0 * static_cast<double>(input.bytes());
    const double flops = 2.0 * static_cast<double>(input.bytes()) * mask.width * mask.height;
    auto rates = [&](double ms) {
      const double gbps = gb_per_s(bytes, ms);
      return std::vector<Cell>{Cell::num(ms, 4), Cell::num(gbps, 1), Cell::num(100.0 * gbps / device.peak_dram_gbps, 1),
                               Cell::num(gflop_per_s(flops, ms), 1)};
    };
    KernelTimer timer(TimingOptions{3, o.repetitions, true});
    std::vector<Cell> kernel_row{"kernel", ok ? "PASS" : "FAIL", dims(config.grid), dims(config.block),
                                 std::to_string(config.shared_bytes)};
    // Only what passed its check is timed.
    const double kernel_ms = ok ? timer.time([&] { filter_image(args); }).median_ms : 0.0;
    const double npp_ms = npp_ok ? timer.time([&] { npp->run(d_in.data(), d_out.data()); }).median_ms : 0.0;
    if (ok) {
      for (Cell& cell : rates(kernel_ms)) kernel_row.push_back(std::move(cell));
      if (npp_ok) kernel_row.push_back(Cell::num(npp_ms / kernel_ms, 2));
    }
    std::vector<std::string> columns{"code", "check", "grid", "block", "smem B", "median ms", "GB/s", "% peak DRAM",
                                     "GFLOP/s"};
    if (ok && npp_ok) columns.push_back("vs NPP");
    Table table(columns);
    table.add_row(kernel_row);
    if (npp) {
      std::vector<Cell> npp_row{"NPP", npp_ok ? "PASS" : "FAIL", "-", "-", "-"};
      if (npp_ok)
        for (Cell& cell : rates(npp_ms)) npp_row.push_back(std::move(cell));
      table.add_row(npp_row);
    }
    if (ok) {
      table.add_note("GB/s counts the compulsory traffic: each input byte read once, each output byte written once." +
                     std::string(npp_ok ? " vs NPP: NPP's time over the kernel's." : ""));
      // On a small picture neither floor means anything: the time is launch and ramp-up.
      if (bytes < 64.0 * 1024 * 1024)
        table.add_note("At " + std::to_string(input.bytes() / 1024) +
                       " KiB the time is mostly launch and ramp-up, not bandwidth; try --width 8192 --height 8192.");
      else
        for (const std::string& line : explain_limit(input, mask, device, bytes, kernel_ms))
          table.add_note(line);
    }
    table.print(std::cout);
    record.add("results", "The image filter", table);

    if (!o.out.empty()) {
      if (ok) {
        write_pnm(o.out, result, o.ascii ? PnmEncoding::ascii : PnmEncoding::binary);
        // Read it back: the file, not just the buffer, is what the user will open.
        const Image written = read_pnm(o.out);
        const bool same = written.width == result.width && written.height == result.height &&
                          written.channels == result.channels && written.pixels == result.pixels;
        std::printf("\n");
        print_labelled("wrote ", "'" + o.out + "' (" + result.describe() + "); read back: " +
                                     (same ? "identical" : "DIFFERENT"));
        if (!same) return record.finish(kExitRuntimeError);
      } else {
        std::printf("\nnot writing '%s': the GPU result failed its check\n", o.out.c_str());
      }
    }
    return record.finish(ok && (npp_ok || !npp) ? kExitPass : kExitCheckFailed);
  });
}
