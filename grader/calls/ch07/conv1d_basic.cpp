// Exercise 7.1 across the process boundary (see remote_function.hpp): the input, the filter and the
// output are device memory.
#include "ch07/conv1d_basic.hpp"
#include "remote_function.hpp"

PMPP_REMOTE_FUNCTION(pmpp::ex07::convolution_1D_basic,
                     (const float* x, const float* f, float* y, std::int64_t n, int radius),
                     (device(x), device(f), device(y), n, radius))
