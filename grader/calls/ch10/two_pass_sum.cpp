// Exercise 10.3 across the process boundary (see remote_function.hpp): the input and the one-float
// result are device memory.
#include "ch10/two_pass_sum.hpp"
#include "remote_function.hpp"

PMPP_REMOTE_FUNCTION(pmpp::ex10::two_pass_sum_reduction, (const float* in, std::size_t n, float* result),
                     (device(in), n, device(result)))
