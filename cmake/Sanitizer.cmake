# compute-sanitizer runs of every stage program (CTest label "sanitizer").
#
# Included once from the top-level CMakeLists.txt. Every chapter's stage programs and side-by-side
# program (collected by pmpp_add_chapter in the global property PMPP_STAGE_PROGRAMS, each with its
# PMPP_SANITIZER_ARGS) run under four tools, each a test of its own:
#   <program>.memcheck   out-of-bounds and misaligned accesses, and device memory leaked at exit
#   <program>.racecheck  shared-memory hazards: a read or write not ordered by a barrier
#   <program>.synccheck  barriers used where not every thread of the block reaches them
#   <program>.initcheck  global memory read before anything wrote it
# plus tests/sanitizer/: a shared-memory kernel with its barrier removed, which racecheck must catch.
#
# Registered only where compute-sanitizer is installed (it ships with the CUDA toolkit, but not with
# every packaging of it). Without a GPU a program prints its one-line "no GPU" message and exits 77
# before touching the device; compute-sanitizer does not always hand that status back (it may report
# "terminated before first instrumented API call" and exit with its own code), so the tests are
# marked skipped by that message as well as by status 77. `sanitizer.no_gpu_is_skipped` checks the
# message still reaches CTest through the sanitizer.
include_guard(GLOBAL)

find_program(PMPP_COMPUTE_SANITIZER compute-sanitizer
  HINTS ${CUDAToolkit_BIN_DIR} ${CUDAToolkit_BIN_DIR}/../compute-sanitizer
  DOC "compute-sanitizer from the CUDA toolkit (the sanitizer tests need it)")

# What pmpp::gpu_or_explain prints (common/pmpp/program.hpp).
set(PMPP_NO_GPU_REGEX "no CUDA-capable GPU on this machine")

# pmpp_add_sanitizer_tests(<program> <args>...): the four tools on one program, each a test.
function(pmpp_add_sanitizer_tests program)
  foreach(tool IN ITEMS memcheck racecheck synccheck initcheck)
    set(options --tool ${tool})
    if(tool STREQUAL "memcheck")
      list(APPEND options --leak-check full)
    endif()
    add_test(NAME ${program}.${tool}
      COMMAND ${PMPP_COMPUTE_SANITIZER} ${options} --error-exitcode 1 $<TARGET_FILE:${program}> ${ARGN})
    set_tests_properties(${program}.${tool} PROPERTIES
      LABELS "sanitizer;gpu"
      SKIP_RETURN_CODE 77
      SKIP_REGULAR_EXPRESSION "${PMPP_NO_GPU_REGEX}"
      TIMEOUT 600)
  endforeach()
endfunction()

function(_pmpp_register_sanitizer_tests)
  get_property(programs GLOBAL PROPERTY PMPP_STAGE_PROGRAMS)
  foreach(program IN LISTS programs)
    get_property(arguments TARGET ${program} PROPERTY PMPP_SANITIZER_ARGS)
    pmpp_add_sanitizer_tests(${program} ${arguments})
  endforeach()
  list(LENGTH programs count)
  message(STATUS "compute-sanitizer: ${PMPP_COMPUTE_SANITIZER} (4 tools x ${count} programs, label 'sanitizer')")
endfunction()

if(NOT PMPP_BUILD_TESTS)
  return()
endif()
# The deliberately broken kernel is built everywhere (it must compile cleanly); its tests need the tool.
add_subdirectory(${PROJECT_SOURCE_DIR}/tests/sanitizer ${PROJECT_BINARY_DIR}/tests/sanitizer)
if(NOT PMPP_COMPUTE_SANITIZER)
  message(STATUS "compute-sanitizer not found: no sanitizer tests (set PMPP_COMPUTE_SANITIZER to add them)")
  return()
endif()
# Chapters may be added after this file is included: register their programs once the top-level
# CMakeLists.txt has been read to the end.
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _pmpp_register_sanitizer_tests)
