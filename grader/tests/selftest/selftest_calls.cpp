// The pretend exercise's functions across the process boundary (see remote_function.hpp).
#include "remote_function.hpp"
#include "selftest.hpp"

PMPP_REMOTE_FUNCTION(pmpp_grader_selftest::echo,
                     (int i, std::int64_t j, std::size_t k, float x, double d, bool b, const float* values,
                      std::size_t count, const float* device_pointer),
                     (i, j, k, x, d, b, host(values, count), count, device(device_pointer)))
PMPP_REMOTE_FUNCTION(pmpp_grader_selftest::misbehave, (int how), (how))
PMPP_REMOTE_FUNCTION(pmpp_grader_selftest::fill, (float* device_pointer, std::size_t n, float value),
                     (device(device_pointer), n, value))
PMPP_REMOTE_FUNCTION(pmpp_grader_selftest::answer_before_the_clock, (const char* path, std::size_t length),
                     (host(path, length), length))
