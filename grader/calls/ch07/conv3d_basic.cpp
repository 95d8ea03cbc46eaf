// Exercise 7.4 across the process boundary (see remote_function.hpp): the volumes and the filter are
// device memory.
#include "ch07/conv3d_basic.hpp"
#include "remote_function.hpp"

PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_3D_basic,
                     (const float* in, const float* filter, float* out, int nx, int ny, int nz, int radius),
                     (device(in), device(filter), device(out), nx, ny, nz, radius))
