# Warnings every target opts into. CI adds -DCMAKE_COMPILE_WARNING_AS_ERROR=ON (see CMakePresets.json).
add_library(pmpp_warnings INTERFACE)
target_compile_options(pmpp_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow>
  # GCC 12 reports false -Wrestrict positives inside std::string concatenation at -O2 (GCC bug 105329).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
