# cmake -DPYTHON=... -DFIGURES=<book/figures> -DRESULTS=<fixture results> -DOUT=<folder> -P check_multi_gpu_runs.cmake
# The multi-GPU page's reader on a fixture (test data, not a measurement): a run recorded before the
# fused ring (one process) and one after it (one process per GPU) read together, one table per quantity
# with the launch modes side by side, a chart with a point for every passing size and none for a failed
# one, each run's tables folded; and with no run, the sentence saying so in every fragment.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PYTHON} ${FIGURES}/multi_gpu_runs.py --results ${RESULTS} --out ${OUT}/with
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "multi_gpu_runs.py failed (${rc}):\n${out}${err}")
endif()

# check_fragment(<file> <regex>...): every regex matches the fragment.
function(check_fragment file)
  file(READ ${OUT}/with/${file} text)
  foreach(regex IN LISTS ARGN)
    if(NOT text MATCHES "${regex}")
      message(FATAL_ERROR "${file} does not match '${regex}':\n${text}")
    endif()
  endforeach()
endfunction()

check_fragment(ch10_multi_gpu_all_reduce.md
  "image html busbw_fixture_2gpus\\.svg"
  "\\| vector \\| copy-engine ring, one process \\| copy-engine ring, process per GPU \\| fused ring, one process \\| fused ring, process per GPU \\| NCCL, one process \\| NCCL, process per GPU \\|"
  # Sizes carry a no-break space (U+00A0), so that no size breaks over two lines on the page.
  # The old record's ring is the copy-engine ring; it has no fused ring; a failed size has no number.
  "\\| 16 MiB \\| 67.1 \\| 33.6 \\| – \\| 83.9 \\| 186.4 \\| 186.4 \\|"
  "\\| 32 MiB \\| – \\| 33.6 \\| – \\| – \\| 197.4 \\| 197.4 \\|"
  # NCCL's time over each ring's, in the same run.
  "\\| 16 MiB \\| 0.36 \\| 0.18 \\| – \\| 0.45 \\|")
# The summary in numbers: each ring against NCCL from 32 MiB up, in each launch mode that has it.
check_fragment(ch10_multi_gpu_findings.md
  "On 2 GPUs, 2 x Fixture GPU"
  "- The sum across GPUs: 1.60x one GPU with NCCL \\(one process\\); 1.60x one GPU with NCCL, 1.82x one GPU with peer reads \\(process per GPU\\)"
  "- The copy-engine ring from 32 MiB up: 0.17x NCCL's speed, 33.6 GB/s at 32 MiB \\(process per GPU\\)\\.")
check_fragment(ch10_multi_gpu_sum.md
  "\\| run \\| ms, one process \\| ms, process per GPU \\| x one GPU, one process \\| x one GPU, process per GPU \\|"
  "\\| stage 06 per shard \\+ NCCL \\| 1.2500 \\| 1.2500 \\| 1.60 \\| 1.60 \\|"
  "\\| stage 06 per shard \\+ peer reads \\| – \\| 1.1000 \\| – \\| 1.82 \\|")
# The links: the copy engines' alone and all at once, and the kernels' loads and stores where a run
# measured them (the older one did not).
check_fragment(ch10_multi_gpu_links.md
  "\\| rank 0 -&gt; 1 \\| – \\| 100 \\| – \\| 90 \\| – \\| 80 \\| – \\| 85 \\|")
check_fragment(results_ch10_multi_gpu.md
  "Recorded with `ch10_multi_gpu --gpus 2 --min-mib 8 --max-mib 32` \\(one process, `results/fixture/ch10_multi_gpu_2gpus.json`\\) and `ch10_multi_gpu_mpi --min-mib 8 --max-mib 32` \\(process per GPU"
  "<details><summary>Everything <code>ch10_multi_gpu_mpi [^<]*</code> printed \\(process per GPU\\)</summary>"
  "</details>")

# More GPUs: a row per GPU count and launch mode, at the largest size every run has (32 MiB here),
# with each ring's steps fitted (the fused ring, one process per GPU on 4 GPUs: 168 GB/s bus bandwidth at 32 MiB; 0.1, 0.2 and 0.3 ms
# for 8, 16 and 32 MiB in 6 steps: 252 GB/s from the two largest, 8.3 us fixed per step).
check_fragment(ch10_multi_gpu_scaling.md
  "\\| GPUs \\| launch \\| copy-engine ring \\| fused ring \\| NCCL \\| model \\| fit: copy-engine ring \\| fit: fused ring \\| sum x one GPU \\|"
  "\\| 4 \\| process per GPU \\| 50 \\| 168 \\| 296 \\| 90 \\| [^|]+ \\| 8.3 us, 252 GB/s \\| 3.64x \\(peer reads\\) \\|"
  "Bus bandwidth in GB/s at 32..MiB")  # a no-break space, two bytes

file(GLOB charts ${OUT}/with/busbw_*_2gpus.svg)
list(LENGTH charts count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one chart, found ${count}")
endif()
file(READ ${charts} chart)
string(REGEX MATCHALL "<circle cx=\"[0-9.]+\" cy=\"[0-9.]+\" r=\"4\"" points "${chart}")
list(LENGTH points count)
# One process: the ring at 8 and 16 MiB (32 failed), NCCL at 8, 16 and 32. One process per GPU: the
# copy-engine ring at 8, 16 and 32 MiB, the fused ring at 8 and 16 (32 failed), NCCL at 8, 16 and 32.
if(NOT count EQUAL 13)
  message(FATAL_ERROR "expected 13 points in the chart, found ${count}")
endif()
if(NOT chart MATCHES "stroke-dasharray=\"6,4\"")
  message(FATAL_ERROR "the chart draws no dashed line for the runs with one process per GPU")
endif()

execute_process(COMMAND ${PYTHON} ${FIGURES}/multi_gpu_runs.py --results ${OUT}/nothing_here --out ${OUT}/without
                RESULT_VARIABLE rc)
foreach(file IN ITEMS results_ch10_multi_gpu.md ch10_multi_gpu_findings.md ch10_multi_gpu_sum.md
                      ch10_multi_gpu_all_reduce.md ch10_multi_gpu_links.md ch10_multi_gpu_scaling.md)
  file(READ ${OUT}/without/${file} text)
  if(NOT rc EQUAL 0 OR NOT text MATCHES "No multi-GPU run is recorded in `results/`")
    message(FATAL_ERROR "without runs, ${file}: exit ${rc}, text: ${text}")
  endif()
endforeach()
