# pmpp_add_chapter(<name>
#   STAGES   <id>...      one <id>.cu per stage in this folder: one kernel and its launcher
#   SOURCES  <file>...    the rest of the chapter library (CPU reference, analysis, stage table)
#   DRIVER   <file>       main() of a stage program; compiled once per stage with PMPP_STAGE_ID="<id>"
#   PROGRAMS <file>...    further programs, one per file (the side-by-side program first: the tour runs it)
#   TOUR_ARGS "<args>"... the tour's runs of the side-by-side program, in order, each a string of
#                         arguments (default: one run with its defaults)
#   LIBRARIES <target>... extra libraries for the chapter library (cuDNN, cuBLAS, CUB)
#   HOST_TESTS <file>...  Catch2 tests that need no GPU (label "host")
#   GPU_TESTS <file>...   Catch2 tests that SKIP without a GPU (label "gpu")
#   SMOKE_ARGS <arg>...   small-size arguments with which every stage program and the side-by-side
#                         program run once as a test (label "program"); other programs register
#                         their own with pmpp_add_program_test)
#   SANITIZER_ARGS <arg>... arguments for the compute-sanitizer runs of the same programs (default:
#                         SMOKE_ARGS); instrumented runs are 10-100x slower, so keep them tiny
#
# Builds (chNN = the name's prefix): library pmpp_<name>; programs chNN_<id>, <name> (side by side) and
# chNN_<program>; tests chNN_host_tests and chNN_gpu_tests from tests/chNN/; CTest entries for every test case and every program.
function(pmpp_add_chapter name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "DRIVER" "STAGES;SOURCES;PROGRAMS;LIBRARIES;HOST_TESTS;GPU_TESTS;SMOKE_ARGS;SANITIZER_ARGS;TOUR_ARGS")
  set(lib pmpp_${name})
  string(REGEX MATCH "^ch[0-9]+" prefix ${name})   # ch07_convolution -> ch07: programs ch07_01_basic, ...

  set(stage_sources)
  foreach(stage IN LISTS ARG_STAGES)
    list(APPEND stage_sources ${stage}.cu)
  endforeach()
  add_library(${lib} STATIC ${stage_sources} ${ARG_SOURCES})
  target_include_directories(${lib} PUBLIC ${PROJECT_SOURCE_DIR}/chapters)
  target_link_libraries(${lib} PUBLIC pmpp_common ${ARG_LIBRARIES} PRIVATE pmpp_warnings)

  set(programs)
  if(ARG_DRIVER)
    foreach(stage IN LISTS ARG_STAGES)
      set(exe ${prefix}_${stage})
      add_executable(${exe} ${ARG_DRIVER})
      target_compile_definitions(${exe} PRIVATE PMPP_STAGE_ID="${stage}")
      target_link_libraries(${exe} PRIVATE ${lib} pmpp_warnings)
      list(APPEND programs ${exe})
    endforeach()
  endif()
  set(first_program "")
  foreach(source IN LISTS ARG_PROGRAMS)
    get_filename_component(program ${source} NAME_WE)
    set(exe ${prefix}_${program})
    if(program STREQUAL name OR program STREQUAL "side_by_side")
      set(exe ${name})
    endif()
    add_executable(${exe} ${source})
    target_link_libraries(${exe} PRIVATE ${lib} pmpp_warnings)
    if(first_program STREQUAL "")
      list(APPEND programs ${exe})
      set(first_program ${exe})
      if(NOT ARG_TOUR_ARGS)
        set(ARG_TOUR_ARGS " ")
      endif()
      foreach(run IN LISTS ARG_TOUR_ARGS)  # "<program>|<arguments>" for cmake/RunTour.cmake
        set_property(GLOBAL APPEND PROPERTY PMPP_TOUR_RUNS "${exe}|${run}")
      endforeach()
    endif()
  endforeach()

  if(NOT PMPP_BUILD_TESTS)
    return()
  endif()
  set(test_dir ${PROJECT_SOURCE_DIR}/tests/${prefix})
  if(ARG_HOST_TESTS)
    pmpp_add_catch2_tests(${prefix}_host_tests host ${lib} ${test_dir} ${ARG_HOST_TESTS})
  endif()
  if(ARG_GPU_TESTS)
    pmpp_add_catch2_tests(${prefix}_gpu_tests gpu ${lib} ${test_dir} ${ARG_GPU_TESTS})
  endif()
  # Every program once on a small input: exit 0 on a GPU, 77 ("no GPU") is reported as skipped.
  foreach(exe IN LISTS programs)
    pmpp_add_program_test(${exe}.runs ${exe} ${ARG_SMOKE_ARGS})
    pmpp_add_json_test(${exe} ANALYSIS ARGS ${ARG_SMOKE_ARGS})
  endforeach()
  # The same programs are run under compute-sanitizer by cmake/Sanitizer.cmake, once every chapter
  # has been added: remember them with their arguments.
  if(NOT DEFINED ARG_SANITIZER_ARGS)
    set(ARG_SANITIZER_ARGS ${ARG_SMOKE_ARGS})
  endif()
  foreach(exe IN LISTS programs)
    set_property(TARGET ${exe} PROPERTY PMPP_SANITIZER_ARGS ${ARG_SANITIZER_ARGS})
    set_property(GLOBAL APPEND PROPERTY PMPP_STAGE_PROGRAMS ${exe})
  endforeach()
endfunction()

# pmpp_add_program_test(<test name> <program> <args>...): run a program as a test. Exit 0 passes;
# 77 (no GPU on this machine) is reported as skipped.
function(pmpp_add_program_test test program)
  if(NOT PMPP_BUILD_TESTS)
    return()
  endif()
  add_test(NAME ${test} COMMAND ${program} ${ARGN})
  set_tests_properties(${test} PROPERTIES LABELS "gpu;program" SKIP_RETURN_CODE 77)
endfunction()

# pmpp_add_json_test(<program> [ANALYSIS] [NAME <mode>] ARGS <args>...): what the program writes with
# --json must be a valid run record (book/tools/run_record.py: unique keys, rows with exactly the
# table's columns, printed cells that are their values rounded, the exit status it returned):
#   <program>.json           run with <args> (labels "gpu;program"). Without a GPU the record of what the
#                            program printed is checked, and the test then reports skipped.
#   <program>.json_analysis  run with --analysis (label "host"), for programs that take it.
# NAME names a second mode of the same program (<program>.<mode>.json), such as ch07_convolution --sweep.
find_package(Python3 COMPONENTS Interpreter QUIET)
function(pmpp_add_json_test program)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "ANALYSIS" "NAME" "ARGS")
  if(NOT PMPP_BUILD_TESTS OR NOT Python3_Interpreter_FOUND)
    return()
  endif()
  set(test ${program})
  if(ARG_NAME)
    set(test ${program}.${ARG_NAME})
  endif()
  set(check ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/book/tools/run_record.py)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/records)
  file(MAKE_DIRECTORY ${dir})
  add_test(NAME ${test}.json COMMAND ${check} --run ${dir}/${test}.json -- $<TARGET_FILE:${program}> ${ARG_ARGS})
  set_tests_properties(${test}.json PROPERTIES LABELS "gpu;program" SKIP_RETURN_CODE 77)
  if(ARG_ANALYSIS)
    add_test(NAME ${test}.json_analysis
      COMMAND ${check} --run ${dir}/${test}_analysis.json -- $<TARGET_FILE:${program}> ${ARG_ARGS} --analysis)
    set_tests_properties(${test}.json_analysis PROPERTIES LABELS "host;json")
  endif()
endfunction()

# One Catch2 executable; each test case becomes its own CTest test (its own process).
function(pmpp_add_catch2_tests target label lib dir)
  set(sources)
  foreach(file IN LISTS ARGN)
    list(APPEND sources ${dir}/${file})
  endforeach()
  add_executable(${target} ${sources})
  target_link_libraries(${target} PRIVATE ${lib} pmpp_test_support pmpp_warnings)
  # Status 4: every selected case skipped (SKIP); any failure exits 42 (tests/support/exit_status.hpp).
  catch_discover_tests(${target}
    TEST_PREFIX "${target}: "
    PROPERTIES LABELS ${label} SKIP_RETURN_CODE 4)
endfunction()

# pmpp_expect_usage_error(<test name> <program> <args>...): the program must print one line to
# stderr and exit with status 2. Runs without a GPU: arguments are checked before the device is.
function(pmpp_expect_usage_error test program)
  add_test(NAME ${test}
    COMMAND ${CMAKE_COMMAND} "-DCOMMAND=$<TARGET_FILE:${program}>;${ARGN}"
            -P ${PROJECT_SOURCE_DIR}/cmake/ExpectUsageError.cmake)
  set_tests_properties(${test} PROPERTIES LABELS "host;cli")
endfunction()
