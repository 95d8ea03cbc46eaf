// ch07_image_filter: filter a picture on the GPU with a named mask, check every output byte against
// the CPU reference, time the kernel, and write the result as PGM/PPM.
//
//   ch07_image_filter --image in.ppm --filter sharpen --out out.ppm
//   ch07_image_filter --filter box --mask-width 9 --mask-height 3 --out blurred.ppm   (built-in picture)
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "ch07_convolution/image_filter/image.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  return guarded_main(kProgram, [&] {
    ImageOptions o;
    Cli cli(kProgram,
            "Filter a picture on the GPU: interleaved 8-bit channels, the same mask on each, non-square masks, "
            "clamp-to-edge borders, results clamped to [0, 255]. Checks every output byte against the CPU "
            "reference (bit-exact), times the kernel, and writes the result if --out is given.");
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
    // Every byte value is a valid pixel, so no single poison value can expose an output the kernel
    // never wrote. Two runs can: a skipped byte keeps 0x00 in one and 0xFF in the other, and at most
    // one of those equals the reference.
    bool ok = true;
    LaunchConfig config;
    Image result(input.width, input.height, input.channels);
    for (const int poison : {0x00, 0xFF}) {
      CUDA_CHECK(cudaMemset(d_out.data(), poison, d_out.bytes()));
      config = filter_image(args);
      CUDA_CHECK(cudaDeviceSynchronize());
      result.pixels = d_out.to_host();
      const CheckResult check = compare(result.pixels, reference.pixels, Tolerance::exact());
      char label[64];
      std::snprintf(label, sizeof label, "check (output filled with 0x%02X first): ", poison);
      print_labelled(label, check.summary());
      if (!check.ok() && !check.first_bad.empty())
        std::printf("  first difference at %s\n", locate(input, check.first_bad.front()).c_str());
      ok = ok && check.ok();
    }
    const bool input_unchanged = d_in.to_host() == input.pixels;
    std::printf("check (input unchanged on the device): %s\n\n", input_unchanged ? "PASS" : "FAIL");
    ok = ok && input_unchanged;

    auto dims = [](Dim3 d) {
      return std::to_string(d.x) + "x" + std::to_string(d.y) + (d.z > 1 ? "x" + std::to_string(d.z) : "");
    };
    // The kernel's name is long (convolution_2D_const_mem_image_kernel): the rows are named by their mask.
    std::printf("kernel: convolution_2D_const_mem_image_kernel\n");
    const std::string mask_name = mask.name + " " + std::to_string(mask.width) + "x" + std::to_string(mask.height);
    Table table({"mask", "check", "grid", "block", "smem B", "median ms", "GB/s", "% peak DRAM", "GFLOP/s"});
    if (ok) {
      KernelTimer timer(TimingOptions{3, o.repetitions, true});
      const Timing t = timer.time([&] { filter_image(args); });
      // Compulsory traffic: every input byte read once, every output byte written once.
      const double bytes = 2.0 * static_cast<double>(input.bytes());
      const double flops = 2.0 * static_cast<double>(input.bytes()) * mask.width * mask.height;
      const double gbps = gb_per_s(bytes, t.median_ms);
      table.add_row({mask_name, "PASS", dims(config.grid), dims(config.block),
                     std::to_string(config.shared_bytes), Cell::num(t.median_ms, 4), Cell::num(gbps, 1),
                     Cell::num(100.0 * gbps / device.peak_dram_gbps, 1),
                     Cell::num(gflop_per_s(flops, t.median_ms), 1)});
      table.add_note("GB/s counts the compulsory traffic: each input byte read once, each output byte written once.");
      // On a small picture neither floor means anything: the time is launch and ramp-up.
      if (bytes < 64.0 * 1024 * 1024)
        table.add_note("At " + std::to_string(input.bytes() / 1024) +
                       " KiB the time is mostly launch and ramp-up, not bandwidth; try --width 8192 --height 8192.");
      else
        for (const std::string& line : explain_limit(input, mask, device, bytes, t.median_ms)) table.add_note(line);
    } else {
      table.add_row({mask_name, "FAIL", dims(config.grid), dims(config.block),
                     std::to_string(config.shared_bytes)});
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
    return record.finish(ok ? kExitPass : kExitCheckFailed);
  });
}
