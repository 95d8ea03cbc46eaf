# cmake -DPYTHON=... -DFIGURES=<book/figures> -DRESULTS=<fixture results> -DOUT=<folder> -P check_generators.cmake
# Runs the generators that read recorded runs on fixtures (test data, not measurements) and checks
# what the book would show. recorded_runs.py: the tables (cells escaped, the --json path dropped, a
# repeated table referred to), rooflines with both roofs from either source, a chapter without runs
# saying so, a JSON file that is not a run left out with a message. reduction_trees.py: a recorded
# trace drawn as a tree, with the input values reconstructed.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${FIGURES}/recorded_runs.py --results ${RESULTS} --out ${OUT} --chapters ch07 ch10
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recorded_runs.py failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${PYTHON} ${FIGURES}/reduction_trees.py --results ${RESULTS} --out ${OUT}
                OUTPUT_VARIABLE trees_out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "reduction_trees.py failed (${rc}):\n${trees_out}${err}")
endif()

function(expect file regex)
  if(NOT EXISTS ${OUT}/${file})
    message(FATAL_ERROR "${file} was not written")
  endif()
  file(READ ${OUT}/${file} text)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${file} does not match '${regex}':\n${text}")
  endif()
endfunction()

if(NOT out MATCHES "not_a_run.json: not a recorded program run")
  message(FATAL_ERROR "a JSON file that is not a run was not reported:\n${out}")
endif()
set(h200 fixture_h200_test_data_for_the_reader_not_a_measurement)
set(h100 fixture_h100_pcie_test_data_for_the_reader_not_a_measurement)
expect(results_ch07.md "\\| stage \\| check \\| grid")
expect(results_ch07.md "\\| 01_basic \\| PASS \\| 256x256 \\| 32x32 \\| 0 \\| 0.5 \\| 1074 \\| 22.3 \\| 6711 \\| 1 \\| 0.5 \\|")
expect(results_ch07.md "\\| 03_broken \\| FAIL \\|")
expect(results_ch07.md "a \\\\\\| bar, an \\\\@at, a \\\\\\* star and a &lt;tag&gt;")
expect(results_ch07.md "\n- 01_basic: the first bullet.\n- 02_other: the second bullet.\n")
expect(results_ch07.md "Run `ch07_convolution --width 8192 --height 8192 --radius 2` on")
expect(results_ch07.md "the same as in `results/ch07_fixture.json` above")
expect(results_ch07.md "image html roofline_ch07_${h200}.svg")
expect(results_ch10.md "No run of this chapter has been recorded yet")
expect(results_roofline.md "image html roofline_all_${h200}.svg")
expect(results_roofline.md "image html roofline_all_${h100}.svg")
# Roofs from the program's notes when it printed them...
expect(roofline_ch07_${h200}.svg "DRAM 4800 GB/s")
expect(roofline_ch07_${h200}.svg "FP32 peak 60.0 TFLOP/s")
expect(roofline_ch07_${h200}.svg ">02_other<")
expect(roofline_ch07_${h200}.svg ">cuDNN<")
expect(results_ch07.md "60.0 TFLOP/s, as the program reported it \\(132 SMs at the peak clock\\)")
# ...else from GB/s over "% peak DRAM" (20 / 0.01 = 2000) and the published specification.
expect(roofline_ch05_${h100}.svg "DRAM 2000 GB/s")
expect(roofline_ch05_${h100}.svg "FP32 peak 51.2 TFLOP/s")
expect(results_ch05.md "from the published specification: 114 SMs")
# The trace: 8 adds in step 1 down to 1 in step 4, the input row rebuilt from the first step.
expect(ch10_trees.md "image html ch10_tree_01_simple.svg")
expect(ch10_trees.md "recorded on the Fixture GPU")
expect(ch10_tree_01_simple.svg ">t7</text>")
expect(ch10_tree_01_simple.svg ">step 4</text>")
expect(ch10_tree_01_simple.svg ">80</text>")
expect(ch10_tree_01_simple.svg "y=\"[0-9.]+\" text-anchor=\"middle\">3</text>")
message(STATUS "generators on fixtures: all expectations met")
