# cmake -DPYTHON=... -DTOOLS=<book/tools> -DFIXTURES=<book/tests/listings> -DOUT=<folder> -P check_listings.cmake
# make_listings.py on test data: the copy of code/demo.cu must be expected/demo.cu exactly (every form
# of instrumentation dropped, nothing else changed).
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${TOOLS}/make_listings.py --project ${FIXTURES} --roots code --out ${OUT}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_listings.py failed (${rc}):\n${out}${err}")
endif()
file(READ ${OUT}/code/demo.cu got)
file(READ ${FIXTURES}/expected/demo.cu want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "the listing copy differs from expected/demo.cu:\n${got}")
endif()
message(STATUS "make_listings.py dropped every form of instrumentation and nothing else")
