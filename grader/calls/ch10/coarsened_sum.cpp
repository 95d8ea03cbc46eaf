// Exercise 10.2 across the process boundary (see remote_function.hpp): the input and the one-float
// result are device memory.
#include "ch10/coarsened_sum.hpp"
#include "remote_function.hpp"

PMPP_REMOTE_FUNCTION(pmpp::ex10::coarsened_sum_reduction, (const float* in, std::size_t n, float* result),
                     (device(in), n, device(result)))
