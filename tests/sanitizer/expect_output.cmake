# cmake -DCOMMAND=<program;args> -DEXPECT=<regex;regex...> [-DEXPECT_STATUS=<n>] [-DSKIP=<regex>] -P expect_output.cmake
#
# Runs COMMAND and passes only if its output matches every regular expression in EXPECT (and, when
# given, it exits with EXPECT_STATUS). Used to prove that a sanitizer *does* report what it should:
# a plain test of the exit status alone would also pass when the program merely crashed.
# When the output matches SKIP (the programs' "no GPU" line), the check is left to CTest's
# SKIP_REGULAR_EXPRESSION, which sees that line in the output echoed here.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
message("exit status: ${status}")

if(DEFINED SKIP AND NOT SKIP STREQUAL "" AND all MATCHES "${SKIP}")
  return()
endif()
if(DEFINED EXPECT_STATUS AND NOT status STREQUAL "${EXPECT_STATUS}")
  message(FATAL_ERROR "expected exit status ${EXPECT_STATUS}, got '${status}'")
endif()
foreach(regex IN LISTS EXPECT)
  if(NOT all MATCHES "${regex}")
    message(FATAL_ERROR "the output does not match '${regex}'")
  endif()
endforeach()
message("PASS: the output matches every expected pattern")
