// Exercise 7.3 across the process boundary (see remote_function.hpp): the filter upload reads a host
// array of (2r+1)^2 taps; the convolution reads and writes device memory.
#include "ch07/conv2d_output_tiled.hpp"
#include "remote_function.hpp"

PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_output_tiled_2D_const_mem_upload_filter,
                     (const float* host_filter, int radius),
                     (host(host_filter, filter_taps(radius, 2, pmpp::ex07::MAX_RADIUS_2D)), radius))
PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_output_tiled_2D_const_mem,
                     (const float* in, float* out, int width, int height, int radius),
                     (device(in), device(out), width, height, radius))
