// attack: the submitted file is a symbolic link to a hidden test (made by the scripts, not a file):
//         compiling it would show the test in the compiler's errors.
// exercise: max_reduction
// base: symlink to @HIDDEN_TESTS@/ch10/test_max_reduction.cpp
// earns: nothing
