# cmake -DNM=<nm> -DEXERCISE=<lib> -DSOLUTION=<lib> -P compare_interfaces.cmake
# Passes when the two static libraries define the same external functions and kernels in the
# exercises' namespaces (pmpp::ex07, pmpp::ex10, ...), by demangled name and signature.
function(exported_symbols lib out)
  execute_process(COMMAND ${NM} -C --defined-only --extern-only ${lib}
                  OUTPUT_VARIABLE text RESULT_VARIABLE status ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${lib}: ${err}")
  endif()
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(symbols "")
  foreach(line IN LISTS lines)
    # "<address> T pmpp::ex07::convolution_1D_basic(float const*, ...)": keep type letter and name.
    if(line MATCHES "^[0-9a-fA-F]* +[A-Za-z] +(.*pmpp::ex[0-9]+::.*)$")
      list(APPEND symbols "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(SORT symbols)
  list(REMOVE_DUPLICATES symbols)
  set(${out} "${symbols}" PARENT_SCOPE)
endfunction()

exported_symbols(${EXERCISE} exercise)
exported_symbols(${SOLUTION} solution)
if(NOT solution)
  message(FATAL_ERROR "no pmpp::exNN:: symbols found in ${SOLUTION}: is nm (${NM}) the right tool?")
endif()
set(only_exercise ${exercise})
if(solution)
  list(REMOVE_ITEM only_exercise ${solution})
endif()
set(only_solution ${solution})
if(exercise)
  list(REMOVE_ITEM only_solution ${exercise})
endif()
if(only_exercise OR only_solution)
  string(REPLACE ";" "\n    " only_exercise "${only_exercise}")
  string(REPLACE ";" "\n    " only_solution "${only_solution}")
  message(FATAL_ERROR "the exercise and its solution export different functions or kernels.\n"
                      "  only in the exercise (${EXERCISE}):\n    ${only_exercise}\n"
                      "  only in the solution (${SOLUTION}):\n    ${only_solution}\n"
                      "Keep the interface of the header and the starter code; make extra helpers static.")
endif()
list(LENGTH solution count)
message(STATUS "${count} exported functions and kernels match")
