# cmake -DCOMMAND="<program>;<arg>..." -DEXPECT=<regex> -P expect_failure.cmake
# Passes only if the command exits with status 1 and prints (on stdout or stderr) a line matching
# EXPECT: proof that a check catches the defect a fixture plants, for the reason it should.
execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit status 1, got '${rc}'\n${out}${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "failed, but without a line matching '${EXPECT}':\n${out}${err}")
endif()
message(STATUS "failed as expected:\n${out}${err}")
