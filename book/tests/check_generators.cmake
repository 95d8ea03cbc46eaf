# cmake -DPYTHON=... -DFIGURES=<book/figures> -DFIXTURES=<book/tests/recorded_runs> -DOUT=<folder>
#       -P check_generators.cmake
# Runs the generators that read recorded runs on fixtures (test data, not measurements) and checks
# what the book would show. recorded_runs.py: tables as printed (cells escaped, the --json path
# dropped, captions in words, notes one per line, numeric columns right-aligned), the text's model
# told from measurements by the program's run without a GPU (a stand-in program, programs/), a
# chart with the library and both limits, a
# placeholder for a fragment no run provides, the pages of all runs (a repeated table referred to) and
# of counters (real headings, the limiters table too), rooflines with both roofs from either source.
# reduction_trees.py: a recorded trace drawn as a tree, with the input values reconstructed.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${FIGURES}/recorded_runs.py --results ${FIXTURES}/results --headline fixture-h200
                        --pages ${FIXTURES}/pages --profiles ${FIXTURES}/profiles --out ${OUT}
                        --program ch07_convolution=${FIXTURES}/programs/ch07_convolution
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "recorded_runs.py failed (${rc}):\n${out}${err}")
endif()
if(NOT out MATCHES "2 table\\(s\\) of the text's model")
  message(FATAL_ERROR "recorded_runs.py should find the two runs' Fig 7.14 tables, and no other, "
                      "to be the model's:\n${out}${err}")
endif()
execute_process(COMMAND ${PYTHON} ${FIGURES}/reduction_trees.py --results ${FIXTURES}/results --out ${OUT}
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
function(expect_not file regex)
  file(READ ${OUT}/${file} text)
  if(text MATCHES "${regex}")
    message(FATAL_ERROR "${file} matches '${regex}', which it must not:\n${text}")
  endif()
endfunction()

set(h200 "Fixture H200 \\(test data for the reader, not a measurement\\)")
set(run run_ch07_convolution_fixture_results.md)
# A table as the program printed it: the caption in words, the cells as printed (0.5000, 3.13), notes
# escaped and one per line, the command without its --json path.
expect(${run} "<div class=\"table-caption\">Stages side by side with cuDNN: 8192 x 8192 image, 5 x 5 filter, on the ${h200}.</div>")
expect(${run} "\\| stage \\| check \\| grid")
# Numbers (a grid's "256x256" too) right-aligned, which keeps each on one line; words (stage, check) not.
expect(${run} "\n\\|---\\|---\\|---:\\|---:\\|---:\\|---:\\|---:\\|---:\\|---:\\|---:\\|---:\\|\n")
expect(${run} "\\| 01_basic \\| PASS \\| 256x256 \\| 32x32 \\| 0 \\| 0.5000 \\| 1074 \\| 22.3 \\| 6711 \\| 1.00 \\| 0.50 \\|")
expect(${run} "\\| 03_broken \\| FAIL \\|")
expect(${run} "<div>a note with a \\\\\\| bar, an \\\\@at, a \\\\\\* star, a &lt;tag&gt; and pmpp\\\\::Table.</div><div>limit: FP32")
expect(${run} "Recorded with `ch07_convolution --width 8192 --height 8192 --radius 2` \\(`results/fixture-h200/ch07_convolution_fixture.json`\\)")
expect_not(${run} "somewhere")
expect(run_ch07_convolution_fixture_fig_7_14.md "\\| 5x5 \\| 3.13 \\| 12.50 \\|")
# The text's model, which the program prints without a GPU: no device, no problem in its caption (no
# other table of its title holds other numbers), and named for the site check; a measurement keeps both.
expect(run_ch07_convolution_fixture_fig_7_14.md "<div class=\"table-caption\">Fig 7.14 \\(fixture\\).</div>")
expect(run_ch07_convolution_fixture_fig_7_14.md
       "needs no GPU: `ch07_convolution --width 8192 --height 8192 --radius 2 --analysis`")
expect_not(run_ch07_convolution_fixture_fig_7_14.md "Fixture H200")
expect(model_tables.json
       "\"Fig 7.14 \\(fixture\\).\": \\[\n  \"results/fixture-h200/ch07_convolution_fixture.json\",\n  \"fig_7_14\"")
# The chart: a bar per stage and for the library, a line per limit, failed stages named.
expect(chart_ch07_convolution_fixture.md "image html chart_ch07_convolution_fixture.svg \"Each stage's median time")
expect(chart_ch07_convolution_fixture.svg ">01_basic</text>")
expect(chart_ch07_convolution_fixture.svg "fill=\"#D55E00\"/>")
expect(chart_ch07_convolution_fixture.svg ">FAIL</text>")
expect(chart_ch07_convolution_fixture.svg ">limit: DRAM floor: 0.1118 ms</text>")
# A fragment a page asks for that no run provides says so.
expect(run_ch10_never_recorded_results.md "Not recorded yet")
# The page of every run: headings per chapter and device and per run; a table shown twice is referred to.
expect(recorded_runs.md "## Chapter 5 on the Fixture H100 PCIe")
expect(recorded_runs.md "### ch07_convolution \\\\--radius 4 \\{#recorded_")
expect(recorded_runs.md "the same table as in \\\\ref recorded_fixture_h200")
# The counters page: real headings with anchors, cells escaped outside code spans only.
expect(counters.md "## On the Fixture GPU \\(test data, not a measurement\\) \\{#counters_fixture_gpu")
expect(counters.md "### ch05_02_tiled on the Fixture GPU")
expect(counters.md "a \\\\\\* star, pmpp\\\\::x and `code \\* kept`")
# ...and the limiters table scripts/profile --limiters recorded, under a heading of its own.
expect(counters.md "## What limits the stages beyond the text, on the Fixture GPU \\(test data, not a measurement\\) \\{#limiters_fixture_gpu")
expect(counters.md "\\| void Kernel&lt;Sum, 1&gt; \\| 0.5 \\|")
# Rooflines: roofs from the program's notes when it printed them...
expect(results_roofline.md "image html roofline_all_fixture_h200")
expect(results_roofline.md "image html roofline_all_fixture_h100_pcie")
expect(roofline_ch07_convolution_fixture.svg "DRAM 4800 GB/s")
expect(roofline_ch07_convolution_fixture.svg "FP32 peak 60.0 TFLOP/s")
expect(roofline_ch07_convolution_fixture.svg ">02_other<")
expect(roofline_ch07_convolution_fixture.svg ">cuDNN<")
expect(roofline_ch07_convolution_fixture.md "60.0 TFLOP/s \\(as the programs reported it \\(132 SMs at the peak clock\\)\\)")
# ...else from GB/s over "% peak DRAM" (20 / 0.01 = 2000) and the published specification.
expect(roofline_all_fixture_h100_pcie_test_data_for_the_reader_not_a_measurement.svg "DRAM 2000 GB/s")
expect(roofline_all_fixture_h100_pcie_test_data_for_the_reader_not_a_measurement.svg "FP32 peak 51.2 TFLOP/s")
expect(results_roofline.md "from the published specification: 114 SMs")
# The trace: 8 adds in step 1 down to 1 in step 4, the input row rebuilt from the first step.
expect(ch10_trees.md "image html ch10_tree_01_simple.svg")
expect(ch10_trees.md "recorded on the Fixture GPU")
expect_not(ch10_trees.md "`")
expect(ch10_tree_01_simple.svg ">t7</text>")
expect(ch10_tree_01_simple.svg ">step 4</text>")
expect(ch10_tree_01_simple.svg ">80</text>")
expect(ch10_tree_01_simple.svg "y=\"[0-9.]+\" text-anchor=\"middle\">3</text>")
message(STATUS "generators on fixtures: all expectations met")
