# cmake -DPROBE=<exe> -DSPEC=<test spec> -DEXPECTED=<status> -P expect_exit_status.cmake
# Runs the probe on the selected test cases and fails unless it exits with the expected status.
execute_process(COMMAND ${PROBE} ${SPEC} RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
if(NOT status STREQUAL EXPECTED)
  message(FATAL_ERROR "${PROBE} ${SPEC} exited with ${status}, expected ${EXPECTED}")
endif()
