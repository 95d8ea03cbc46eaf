/// @file figures.hpp
/// @brief The book's generated figures and tables, one function per file, each computed by the
/// chapters' own CUDA-free analysis code (so a figure cannot disagree with the tests of that code).
#pragma once

#include <string>

namespace pmpp::book {

/// fig_7_14.svg: OP/B of the tiled convolution kernel against the input-tile side, one curve per
/// filter size, with its bound (the text's Fig 7.14, drawn from pmpp::ch07::tiled_op_per_byte).
void write_fig_7_14(const std::string& dir);

/// ch07_stage_table.md: one row per chapter-7 stage, from pmpp::ch07::stages().
void write_ch07_stage_table(const std::string& dir);

/// ch05_stage_table.md: one row per chapter-5 stage, from pmpp::ch05::stages().
void write_ch05_stage_table(const std::string& dir);

/// ch10_stage_table.md: one row per chapter-10 stage, from pmpp::ch10::stages(), and the library row.
void write_ch10_stage_table(const std::string& dir);

/// ch10_ring.svg: the ring all-reduce over 4 GPUs, step by step, from pmpp::ch10::multi_gpu's plan.
void write_ch10_ring(const std::string& dir);

/// ch07_image_filters.svg: the image program's test picture before and after three masks, computed
/// by the CPU reference the GPU kernel matches bit for bit.
void write_ch07_image_filters(const std::string& dir);

}  // namespace pmpp::book
