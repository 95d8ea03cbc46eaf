// Exercise 7.5 across the process boundary (see remote_function.hpp): the filter upload reads a host
// array of (2r+1)^3 taps; the convolution reads and writes device memory.
#include "ch07/conv3d_tiled.hpp"
#include "remote_function.hpp"

PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_tiled_3D_const_mem_upload_filter, (const float* host_filter, int radius),
                     (host(host_filter, filter_taps(radius, 3, pmpp::ex07::MAX_RADIUS_3D)), radius))
PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_tiled_3D_const_mem,
                     (const float* in, float* out, int nx, int ny, int nz, int radius),
                     (device(in), device(out), nx, ny, nz, radius))
