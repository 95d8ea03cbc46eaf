// attack: a launcher that never returns.
// exercise: max_reduction
// base: none
// earns: nothing
#include "ch10/max_reduction.hpp"
void pmpp::ex10::max_reduction(const float*, std::size_t, float*) {
  for (;;) pause();
}
