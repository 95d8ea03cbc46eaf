// What both programs share to call NPP (see npp_support.hpp). Without PMPP_HAVE_NPP, npp_available()
// says no and npp_description() says why.
#include "ch07_convolution/npp_support.hpp"

#ifdef PMPP_HAVE_NPP
#include <npp.h>
#endif

namespace pmpp::ch07 {

#ifdef PMPP_HAVE_NPP
bool npp_available() { return true; }

std::string npp_description() {
  const NppLibraryVersion* v = nppGetLibVersion();
  return "NPP " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->build);
}
#else
bool npp_available() { return false; }

std::string npp_description() {
  return "NPP not available in this build (CMake found no libnppif and libnppc of this CUDA toolkit, or "
         "PMPP_WITH_NPP is off)";
}
#endif

std::vector<float> npp_coefficients(const std::vector<float>& filter) { return {filter.rbegin(), filter.rend()}; }

}  // namespace pmpp::ch07
