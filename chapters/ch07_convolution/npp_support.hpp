/// @file npp_support.hpp
/// @brief What both chapter-7 programs need to call NPP (NVIDIA Performance Primitives, part of the
/// CUDA toolkit): whether this build has it, its version, and the filter in the order NPP reads it.
/// Plain C++ (no NPP types here), so the programs compile the same with or without NPP.
#pragma once

#include <string>
#include <vector>

namespace pmpp::ch07 {

/// True when this build found NPP's filtering library at configure time (PMPP_HAVE_NPP).
bool npp_available();
/// "NPP 13.0.3" (the library loaded at run time), or why there is none in this build.
std::string npp_description();

/// NPP's filters compute a true convolution: they read their coefficients "in reverse order", so the
/// last coefficient meets the top-left pixel of the window. Every filter here is applied unflipped
/// (a correlation), so it goes to NPP reversed: the whole row-major array, back to front, which
/// flips it both ways.
std::vector<float> npp_coefficients(const std::vector<float>& filter);

}  // namespace pmpp::ch07
