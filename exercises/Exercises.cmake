# The exercises and how each is built and tested. Included by exercises/ and solutions/ (each
# directory needs the list; the functions and targets below are defined only once).
#
# The tests never link the code they grade: one trusted test executable per exercise holds the tests,
# and calls the exercise's functions in a worker process built from the code under test (the starter
# code, a student's copy, or the solution). See grader/ and exercises/README.md.

# <chapter>:<number>:<name>, in the order students meet them. Each exercise is five files:
#   exercises/<chapter>/<name>.hpp             the interface: starter code, solution and tests share it
#   exercises/<chapter>/<name>.cu              the starter code (or a student's copy: PMPP_EXERCISES_DIR)
#   solutions/<chapter>/<name>.cu              the solution: same file name, same interface
#   tests/exercises/<chapter>/test_<name>.cpp  the graded Catch2 tests, points in the tags ([points=N])
#   grader/calls/<chapter>/<name>.cpp    how each function's arguments reach the worker
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
set(PMPP_GRADER_CALLS_DIR ${PROJECT_SOURCE_DIR}/grader/calls)

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

# pmpp_add_exercise_variant(<variant> <dir>): for every exercise whose <dir>/<chapter>/<name>.cu
# exists, the library ex<NN>_<name>_<variant> (the code alone: the interface check compares its
# symbols) and, with tests, the worker ex<NN>_<name>_<variant>_worker: that code behind the exercise's
# remote functions (grader/calls/<chapter>/<name>.cpp), which the tests call into.
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
    if(NOT TARGET ${ex_stem}_calls_worker)
      add_library(${ex_stem}_calls_worker OBJECT ${PMPP_GRADER_CALLS_DIR}/${ex_chapter}/${ex_name}.cpp)
      target_compile_definitions(${ex_stem}_calls_worker PRIVATE PMPP_GRADER_WORKER)
      target_include_directories(${ex_stem}_calls_worker PRIVATE ${PROJECT_SOURCE_DIR}/exercises)
      target_link_libraries(${ex_stem}_calls_worker PRIVATE pmpp_grader_worker_runtime pmpp_warnings)
    endif()
    add_executable(${lib}_worker)
    target_link_libraries(${lib}_worker PRIVATE ${ex_stem}_calls_worker pmpp_grader_worker_runtime ${lib})
  endforeach()
endfunction()

# _pmpp_exercise_tests(<exe> <source> <chapter> <name>): a trusted test executable: the Catch2 tests
# of <source>, the exercise's remote functions as proxies, the grader's main. No code under test.
function(_pmpp_exercise_tests exe source chapter name)
  add_executable(${exe} ${source} ${PMPP_GRADER_CALLS_DIR}/${chapter}/${name}.cpp)
  target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR}/exercises ${PMPP_EXERCISE_TESTS_DIR}/support
                                            ${PMPP_EXERCISE_TESTS_DIR}/${chapter})
  target_link_libraries(${exe} PRIVATE pmpp_grader_trusted pmpp_warnings)
endfunction()

# _pmpp_register_exercise_tests(<exe> <source> <stem> <hidden suffix>): each test case of <exe> becomes
# a CTest test (its own process) once per variant that was built, run against that variant's worker:
# label "exercise" (fails until solved) or "solution" (must pass). Speed and feedback cases ([speed],
# [feedback]: they time the variant against the solution) run alone (RUN_SERIAL): other tests on the GPU
# would skew them.
function(_pmpp_register_exercise_tests exe source stem suffix)
  file(STRINGS ${source} timed_cases REGEX "\\[(speed|feedback)\\]")
  file(STRINGS ${source} large_cases REGEX "\\[large\\]")
  foreach(variant IN ITEMS exercise solution)
    if(NOT TARGET ${stem}_${variant}_worker)
      continue()
    endif()
    set(reference "")
    if(TARGET ${stem}_solution_worker)
      set(reference --reference-worker $<TARGET_FILE:${stem}_solution_worker>)
    endif()
    # SKIP() exits with 4 (no GPU); a hang must not stall the whole run.
    catch_discover_tests(${exe} TEST_SPEC "~[speed]~[feedback]" TEST_PREFIX "${stem} (${variant}${suffix}): "
      EXTRA_ARGS --worker $<TARGET_FILE:${stem}_${variant}_worker> ${reference}
      PROPERTIES LABELS ${variant} SKIP_RETURN_CODE 4 TIMEOUT 300)
    if(timed_cases)
      catch_discover_tests(${exe} TEST_SPEC "[speed],[feedback]" TEST_PREFIX "${stem} (${variant}${suffix}): "
        EXTRA_ARGS --worker $<TARGET_FILE:${stem}_${variant}_worker> ${reference}
        PROPERTIES LABELS ${variant} SKIP_RETURN_CODE 4 TIMEOUT 300 RUN_SERIAL TRUE)
    endif()
    # Cases on arrays larger than a 16 GB GPU ([large]) pass the solution there too: run again with all
    # of the GPU's memory held but 15 GiB (what a T4 leaves free), alone, since the rest is taken.
    if(large_cases AND variant STREQUAL "solution")
      catch_discover_tests(${exe} TEST_SPEC "[large]" TEST_PREFIX "${stem} (${variant}${suffix}, 15 GiB free): "
        EXTRA_ARGS --worker $<TARGET_FILE:${stem}_${variant}_worker> ${reference}
        PROPERTIES LABELS ${variant} SKIP_RETURN_CODE 4 TIMEOUT 300 RUN_SERIAL TRUE
                   ENVIRONMENT PMPP_GPU_MEMORY_GIB=15)
    endif()
  endforeach()
  # The solution's worker is the reference of speed cases. (Not the exercise's: scripts/grade builds
  # the test executables, and must never compile a student's code outside its sandbox.)
  if(TARGET ${stem}_solution_worker)
    add_dependencies(${exe} ${stem}_solution_worker)
  endif()
endfunction()

# _pmpp_cuda_arch_flags(<var>): nvcc's flags for CMAKE_CUDA_ARCHITECTURES, as CMake itself turns them
# (90: SASS and PTX; 90-real: SASS; 90-virtual: PTX; native, all, all-major), for scripts/grade, which
# compiles a student's file with nvcc directly.
function(_pmpp_cuda_arch_flags var)
  set(flags "")
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(arch MATCHES "^(native|all|all-major)$")
      list(APPEND flags "-arch=${arch}")
    elseif(arch MATCHES "^([0-9]+[a-z]?)-real$")
      list(APPEND flags "--generate-code=arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1}")
    elseif(arch MATCHES "^([0-9]+[a-z]?)-virtual$")
      list(APPEND flags "--generate-code=arch=compute_${CMAKE_MATCH_1},code=compute_${CMAKE_MATCH_1}")
    elseif(arch MATCHES "^([0-9]+[a-z]?)$")
      list(APPEND flags "--generate-code=arch=compute_${arch},code=[compute_${arch},sm_${arch}]")
    endif()
  endforeach()
  set(${var} "${flags}" PARENT_SCOPE)
endfunction()

# _pmpp_json_list(<var> <items>...): ["a", "b"] (items free of quotes and backslashes: paths, flags).
function(_pmpp_json_list var)
  set(json "")
  foreach(item IN LISTS ARGN)
    if(json)
      string(APPEND json ", ")
    endif()
    string(APPEND json "\"${item}\"")
  endforeach()
  set(${var} "[${json}]" PARENT_SCOPE)
endfunction()

# pmpp_finish_exercises(): after both variants exist. Makes the trusted test executables and registers
# their cases and the interface checks with CTest, and writes <build>/exercises/manifest.json, which
# tells scripts/grade what to build and how to compile a student's worker.
function(pmpp_finish_exercises)
  set(entries "")
  set(separator "")
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
    if(NOT PMPP_BUILD_TESTS)
      continue()
    endif()

    _pmpp_exercise_tests(${ex_stem}_tests ${PMPP_EXERCISE_TESTS_DIR}/${ex_chapter}/test_${ex_name}.cpp
                         ${ex_chapter} ${ex_name})
    _pmpp_register_exercise_tests(${ex_stem}_tests ${PMPP_EXERCISE_TESTS_DIR}/${ex_chapter}/test_${ex_name}.cpp
                                  ${ex_stem} "")
    set(hidden_source ${PMPP_HIDDEN_TESTS_DIR}/${ex_chapter}/test_${ex_name}.cpp)
    set(hidden null)
    if(PMPP_HIDDEN_TESTS_DIR AND EXISTS ${hidden_source})
      _pmpp_exercise_tests(${ex_stem}_hidden_tests ${hidden_source} ${ex_chapter} ${ex_name})
      _pmpp_register_exercise_tests(${ex_stem}_hidden_tests ${hidden_source} ${ex_stem} ", hidden")
      set(hidden "\"$<TARGET_FILE:${ex_stem}_hidden_tests>\"")
    endif()
    # The calls file compiled for the worker: scripts/grade links it with a student's file.
    set(calls "[\"$<JOIN:$<TARGET_OBJECTS:${ex_stem}_calls_worker>,\"$<COMMA> \">\"]")
    string(APPEND entries "${separator}\n    {\"id\": \"${ex_id}\", \"chapter\": \"${ex_chapter}\", \"name\": \"${ex_name}\",\n"
           "     \"tests\": \"$<TARGET_FILE:${ex_stem}_tests>\", \"hidden_tests\": ${hidden},\n"
           "     \"reference_worker\": \"$<TARGET_FILE:${ex_stem}_solution_worker>\", \"calls_objects\": ${calls},\n"
           "     \"targets\": [\"${ex_stem}_tests\", \"${ex_stem}_calls_worker\", \"${ex_stem}_solution_worker\"")
    if(NOT hidden STREQUAL "null")
      string(APPEND entries ", \"${ex_stem}_hidden_tests\"")
    endif()
    string(APPEND entries "]}")
    set(separator ",")
  endforeach()
  if(NOT PMPP_BUILD_TESTS)
    return()
  endif()

  _pmpp_cuda_arch_flags(arch_flags)
  _pmpp_json_list(arch_json ${arch_flags})
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(cuda_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${config}}")
  _pmpp_json_list(flags_json ${cuda_flags})
  # The grader's sandbox resolves no bare name (-DCMAKE_CUDA_HOST_COMPILER=g++-11): its full path.
  set(host_compiler "${CMAKE_CUDA_HOST_COMPILER}")
  if(host_compiler AND NOT IS_ABSOLUTE "${host_compiler}")
    find_program(host_compiler_path "${host_compiler}" NO_CACHE)
    if(host_compiler_path)
      set(host_compiler "${host_compiler_path}")
    endif()
  endif()
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/exercises/manifest.json CONTENT
"{
  \"hidden_tests_dir\": \"${PMPP_HIDDEN_TESTS_DIR}\",
  \"sandbox\": \"$<TARGET_FILE:pmpp_sandbox>\",
  \"targets\": [\"pmpp_sandbox\", \"pmpp_common\", \"pmpp_grader_worker_runtime\"],
  \"worker_build\": {
    \"nvcc\": \"${CMAKE_CUDA_COMPILER}\",
    \"host_compiler\": \"${host_compiler}\",
    \"flags\": ${flags_json},
    \"architectures\": ${arch_json},
    \"include_dirs\": [\"${PROJECT_SOURCE_DIR}/exercises\", \"${PROJECT_SOURCE_DIR}/common\"],
    \"runtime_objects\": [\"$<JOIN:$<TARGET_OBJECTS:pmpp_grader_worker_runtime>,\"$<COMMA> \">\"],
    \"libraries\": [\"$<TARGET_FILE:pmpp_common>\"]
  },
  \"exercises\": [${entries}\n  ]
}
")
endfunction()
