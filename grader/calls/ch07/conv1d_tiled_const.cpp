// Exercise 7.2 across the process boundary (see remote_function.hpp): the filter upload reads a host
// array of 2r+1 taps; the convolution reads and writes device memory.
#include "ch07/conv1d_tiled_const.hpp"
#include "remote_function.hpp"

PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_tiled_1D_const_mem_upload_filter, (const float* host_f, int radius),
                     (host(host_f, filter_taps(radius, 1, pmpp::ex07::MAX_RADIUS_1D)), radius))
PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_tiled_1D_const_mem, (const float* x, float* y, std::int64_t n, int radius),
                     (device(x), device(y), n, radius))
