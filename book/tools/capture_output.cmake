# cmake -DPROGRAM=<program> -DARGS="<arg>|<arg>..." -DOUTPUT=<file> -P capture_output.cmake
# Runs a program and keeps what it printed, for the book to show verbatim. A failing program fails
# the docs build: the book never shows the output of a run that did not succeed. (Arguments are
# separated by "|" because a ";" list would be split on its way through a custom command.)
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "book: '${PROGRAM} ${ARGS}' exited with ${rc}:\n${out}${err}")
endif()
file(WRITE ${OUTPUT} "${out}")
