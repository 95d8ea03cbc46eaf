# The exercises and how each is built, once against the starter code (or a student's copy) and once
# against the solutions, from ONE set of test sources. Included by exercises/ and solutions/ (each
# directory needs the list; the functions and targets below are defined only once).

# <chapter>:<number>:<name>, in the order students meet them. Each exercise is four files:
#   exercises/<chapter>/<name>.hpp             the interface: starter code, solution and tests share it
#   exercises/<chapter>/<name>.cu              the starter code (or a student's copy: PMPP_EXERCISES_DIR)
#   solutions/<chapter>/<name>.cu              the solution: same file name, same interface
#   tests/exercises/<chapter>/test_<name>.cpp  the graded Catch2 tests, points in the tags ([points=N])
set(PMPP_EXERCISES
  ch07:1:conv1d_basic
  ch07:2:conv1d_tiled_const
  ch07:3:conv2d_output_tiled
  ch07:4:conv3d_basic
  ch07:5:conv3d_tiled
  ch10:1:max_reduction
  ch10:2:coarsened_sum
  ch10:3:two_pass_sum)

set(PMPP_EXERCISE_TESTS_DIR ${PROJECT_SOURCE_DIR}/tests/exercises)

# Student code gets the project's warnings without the forced -Werror of pmpp_warnings: an unused
# variable should not cost a student an exercise. CMAKE_COMPILE_WARNING_AS_ERROR (on in CI) still makes
# them errors for the repository's own starter code, which must stay warning-free.
if(NOT TARGET pmpp_exercise_warnings)
  add_library(pmpp_exercise_warnings INTERFACE)
  target_compile_options(pmpp_exercise_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
endif()

# _pmpp_exercise_fields(<entry>): split "ch07:1:conv1d_basic" into ex_chapter (ch07), ex_number (1),
# ex_name (conv1d_basic), ex_id (ex07.1) and ex_stem (ex07_conv1d_basic, the prefix of its targets).
macro(_pmpp_exercise_fields entry)
  string(REPLACE ":" ";" _fields ${entry})
  list(GET _fields 0 ex_chapter)
  list(GET _fields 1 ex_number)
  list(GET _fields 2 ex_name)
  string(REPLACE "ch" "ex" _ex ${ex_chapter})
  set(ex_id ${_ex}.${ex_number})
  set(ex_stem ${_ex}_${ex_name})
endmacro()

# _pmpp_exercise_test(<exe> <objects> <source> <chapter> <lib> <ctest prefix> <label>): one Catch2
# executable from test objects shared by both variants (compiled once) and one variant's library.
function(_pmpp_exercise_test exe objects source chapter lib prefix label)
  if(NOT TARGET ${objects})
    add_library(${objects} OBJECT ${source})
    target_include_directories(${objects} PRIVATE ${PROJECT_SOURCE_DIR}/exercises ${PMPP_EXERCISE_TESTS_DIR}/support
                                                  ${PMPP_EXERCISE_TESTS_DIR}/${chapter})
    target_link_libraries(${objects} PRIVATE pmpp_test_support pmpp_common pmpp_warnings)
  endif()
  add_executable(${exe})
  target_link_libraries(${exe} PRIVATE ${objects} ${lib} pmpp_test_support)
  # Each test case is its own CTest test (its own process). SKIP() exits 4 (no GPU); a student's hang
  # must not stall the whole run.
  catch_discover_tests(${exe} TEST_PREFIX "${prefix}: " PROPERTIES LABELS ${label} SKIP_RETURN_CODE 4 TIMEOUT 120)
endfunction()

# pmpp_add_exercise_variant(<variant> <dir>): for every exercise whose <dir>/<chapter>/<name>.cu
# exists, the library ex<NN>_<name>_<variant> and, with tests, the executable
# ex<NN>_<name>_<variant>_tests (CTest label <variant>). When PMPP_HIDDEN_TESTS_DIR holds
# <chapter>/test_<name>.cpp, also ex<NN>_<name>_<variant>_hidden_tests.
function(pmpp_add_exercise_variant variant dir)
  foreach(entry IN LISTS PMPP_EXERCISES)
    _pmpp_exercise_fields(${entry})
    set(source ${dir}/${ex_chapter}/${ex_name}.cu)
    if(NOT EXISTS ${source})
      message(WARNING "${ex_id} ${ex_name}: ${source} is missing; it is not built and scores 0")
      continue()
    endif()
    set(lib ${ex_stem}_${variant})
    add_library(${lib} STATIC ${source})
    target_include_directories(${lib} PUBLIC ${PROJECT_SOURCE_DIR}/exercises)
    target_link_libraries(${lib} PUBLIC pmpp_common)
    if(variant STREQUAL "solution")
      target_link_libraries(${lib} PRIVATE pmpp_warnings)
    else()
      target_link_libraries(${lib} PRIVATE pmpp_exercise_warnings)
      if(NOT dir STREQUAL "${PROJECT_SOURCE_DIR}/exercises")
        set_target_properties(${lib} PROPERTIES COMPILE_WARNING_AS_ERROR OFF)  # a student's copy
      endif()
    endif()

    if(NOT PMPP_BUILD_TESTS)
      continue()
    endif()
    _pmpp_exercise_test(${lib}_tests ${ex_stem}_test_objects ${PMPP_EXERCISE_TESTS_DIR}/${ex_chapter}/test_${ex_name}.cpp
                        ${ex_chapter} ${lib} "${ex_stem} (${variant})" ${variant})
    set(hidden ${PMPP_HIDDEN_TESTS_DIR}/${ex_chapter}/test_${ex_name}.cpp)
    if(PMPP_HIDDEN_TESTS_DIR AND EXISTS ${hidden})
      _pmpp_exercise_test(${lib}_hidden_tests ${ex_stem}_hidden_test_objects ${hidden} ${ex_chapter} ${lib}
                          "${ex_stem} (${variant}, hidden)" ${variant})
    endif()
  endforeach()
endfunction()

# _pmpp_json_target(<var> <target>): {"target": ..., "executable": ...} or null.
function(_pmpp_json_target var target)
  if(TARGET ${target})
    set(${var} "{\"target\": \"${target}\", \"executable\": \"$<TARGET_FILE:${target}>\"}" PARENT_SCOPE)
  else()
    set(${var} "null" PARENT_SCOPE)
  endif()
endfunction()

# pmpp_finish_exercises(): after both variants exist. Registers the interface checks and writes
# <build>/exercises/manifest.json, which tells scripts/grade what to build and run.
function(pmpp_finish_exercises)
  set(entries "")
  foreach(entry IN LISTS PMPP_EXERCISES)
    _pmpp_exercise_fields(${entry})
    set(exercise_lib ${ex_stem}_exercise)
    set(solution_lib ${ex_stem}_solution)
    # The exercise (or the student's copy) must export exactly the functions and kernels the solution
    # does: same names, same signatures. The shared header makes most drift a compile error; this
    # catches the rest (a kernel renamed, a launcher overloaded instead of fixed).
    if(PMPP_BUILD_TESTS AND TARGET ${exercise_lib} AND TARGET ${solution_lib})
      add_test(NAME exercises.${ex_stem}.interface_matches_solution
               COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DEXERCISE=$<TARGET_FILE:${exercise_lib}>
                       -DSOLUTION=$<TARGET_FILE:${solution_lib}> -P ${PMPP_EXERCISE_TESTS_DIR}/compare_interfaces.cmake)
      set_tests_properties(exercises.${ex_stem}.interface_matches_solution PROPERTIES LABELS host)
    endif()

    _pmpp_json_target(exercise ${exercise_lib}_tests)
    _pmpp_json_target(solution ${solution_lib}_tests)
    _pmpp_json_target(hidden_exercise ${exercise_lib}_hidden_tests)
    _pmpp_json_target(hidden_solution ${solution_lib}_hidden_tests)
    string(APPEND entries "${separator}\n    {\"id\": \"${ex_id}\", \"chapter\": \"${ex_chapter}\", \"name\": \"${ex_name}\", "
           "\"source\": \"${PMPP_EXERCISES_DIR}/${ex_chapter}/${ex_name}.cu\",\n     \"exercise\": ${exercise}, "
           "\"solution\": ${solution},\n     \"hidden_exercise\": ${hidden_exercise}, \"hidden_solution\": ${hidden_solution}}")
    set(separator ",")
  endforeach()

  # Targets every exercise needs that are built from source here (the harness library, and Catch2
  # when it was downloaded): grade builds them first, so that exercises can then build side by side
  # without two builds racing to make the same library.
  set(prebuild "\"pmpp_common\"")
  if(TARGET Catch2WithMain)
    get_target_property(imported Catch2WithMain IMPORTED)
    if(NOT imported)
      set(prebuild "${prebuild}, \"Catch2WithMain\"")
    endif()
  endif()
  set(tests false)
  if(PMPP_BUILD_TESTS)
    set(tests true)
  endif()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/exercises/manifest.json CONTENT
"{
  \"exercises_dir\": \"${PMPP_EXERCISES_DIR}\",
  \"hidden_tests_dir\": \"${PMPP_HIDDEN_TESTS_DIR}\",
  \"generator\": \"${CMAKE_GENERATOR}\",
  \"tests\": ${tests},
  \"prebuild\": [${prebuild}],
  \"exercises\": [${entries}\n  ]
}
")
endfunction()
