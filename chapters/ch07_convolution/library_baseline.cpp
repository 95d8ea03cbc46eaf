// The library table (see library_baseline.hpp): adding a library is a class with the
// LibraryConvolution calls and a row here.
#include "ch07_convolution/library_baseline.hpp"

#include "ch07_convolution/cudnn_baseline.hpp"
#include "ch07_convolution/npp_baseline.hpp"

namespace pmpp::ch07 {

namespace {
template <class Convolution>
std::unique_ptr<LibraryConvolution> make(int width, int height, int radius) {
  return std::make_unique<Convolution>(width, height, radius);
}

const std::vector<LibraryBaseline> kLibraries = {
    {"cuDNN", cudnn_available, cudnn_description, make<CudnnConvolution>},
    {"NPP", npp_available, npp_description, make<NppConvolution>},
};
}  // namespace

const std::vector<LibraryBaseline>& library_baselines() { return kLibraries; }

}  // namespace pmpp::ch07
