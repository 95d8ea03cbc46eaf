# cmake -DPYTHON=... -DFIGURES=<book/figures> -DRESULTS=<fixture results> -DOUT=<folder> -P check_multi_gpu_runs.cmake
# The multi-GPU page's reader on a fixture (test data, not a measurement): the tables, a chart with a
# point for every passing size and none for a failed one; and with no run, the sentence saying so.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${FIGURES}/multi_gpu_runs.py --results ${RESULTS} --out ${OUT}/with
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "multi_gpu_runs.py failed (${rc}):\n${out}${err}")
endif()
file(READ ${OUT}/with/results_ch10_multi_gpu.md text)
foreach(regex IN ITEMS
    "Recorded with `ch10_multi_gpu --gpus 2 --min-mib 8 --max-mib 32`"
    "The all-reduce, hand-written ring against NCCL: sum of 268435456 floats, all-reduce of 8 MiB to 32 MiB, 2 ranks: one process driving 2 GPU\\(s\\), on the 2 x Fixture GPU"
    "\\| 16 MiB \\| PASS \\| 0.25 \\| 67.1 \\| PASS \\|"
    "\\| 32 MiB \\| FAIL \\|"
    "image html busbw_[a-z0-9_]+\\.svg")
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "results_ch10_multi_gpu.md does not match '${regex}':\n${text}")
  endif()
endforeach()
file(GLOB charts ${OUT}/with/busbw_*.svg)
list(LENGTH charts count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one chart, found ${count}")
endif()
file(READ ${charts} chart)
string(REGEX MATCHALL "<circle cx=\"[0-9.]+\" cy=\"[0-9.]+\" r=\"4\"" points "${chart}")
list(LENGTH points count)
if(NOT count EQUAL 5)  # ring at 8 and 16 MiB (32 failed), NCCL at 8, 16 and 32 MiB
  message(FATAL_ERROR "expected 5 points in the chart, found ${count}")
endif()

execute_process(COMMAND ${PYTHON} ${FIGURES}/multi_gpu_runs.py --results ${OUT}/nothing_here --out ${OUT}/without
                RESULT_VARIABLE rc)
file(READ ${OUT}/without/results_ch10_multi_gpu.md text)
if(NOT rc EQUAL 0 OR NOT text MATCHES "No multi-GPU run is recorded yet")
  message(FATAL_ERROR "without runs: exit ${rc}, text: ${text}")
endif()
