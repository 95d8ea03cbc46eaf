# Which GPUs the build compiles for (CMAKE_CUDA_ARCHITECTURES), chosen in this order:
#   1. the user's choice: -DCMAKE_CUDA_ARCHITECTURES=... (kept in the cache from then on), or the
#      CUDAARCHS environment variable when the cache holds no choice of the user's;
#   2. the GPUs in this machine, as nvidia-smi reports them (each compute capability once);
#   3. without a GPU (a laptop, a login node, CI), PTX for the oldest supported GPU (7.5) alone: one
#      device pass per file and no machine code, the quickest build that still compiles every kernel.
#      Any GPU from 7.5 on runs it, compiled by its driver, but without what newer GPUs add (ch05's
#      cp.async needs 8.0): a machine with a GPU detects it, and CUDAARCHS chooses for another.
# A choice the toolkit cannot compile stops the configure with one message that lists what it can.
#
#   pmpp_cuda_architectures_request()  before project(): note the user's choice and keep it from
#                                      CMake's compiler check, which would fail on it obscurely
#   pmpp_cuda_architectures_choose()   after project(): check or choose, print, store in the cache
#
# PMPP_CUDA_ARCHITECTURES_AUTO remembers a value this file chose, so that the next configure chooses
# again (the machine may have another GPU by then) instead of taking it for the user's.
include_guard(GLOBAL)

set(PMPP_OLDEST_SUPPORTED_CUDA_ARCHITECTURE 75)

macro(pmpp_cuda_architectures_request)
  if(DEFINED CACHE{CMAKE_CUDA_ARCHITECTURES}
     AND NOT "$CACHE{CMAKE_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{PMPP_CUDA_ARCHITECTURES_AUTO}")
    set(PMPP_CUDA_ARCHITECTURES_REQUEST "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
    set(PMPP_CUDA_ARCHITECTURES_ORIGIN "CMAKE_CUDA_ARCHITECTURES")
  elseif(NOT "$ENV{CUDAARCHS}" STREQUAL "")
    set(PMPP_CUDA_ARCHITECTURES_REQUEST "$ENV{CUDAARCHS}")
    set(PMPP_CUDA_ARCHITECTURES_ORIGIN "CUDAARCHS")
  else()
    set(PMPP_CUDA_ARCHITECTURES_REQUEST "")
    set(PMPP_CUDA_ARCHITECTURES_ORIGIN "")
  endif()
  unset(CMAKE_CUDA_ARCHITECTURES CACHE)
  unset(CMAKE_CUDA_ARCHITECTURES)
  unset(ENV{CUDAARCHS})
endmacro()

# <out>: the numbers in "<prefix>NN" words of what `nvcc <flag>` prints (sm_90a and the like left out).
function(_pmpp_nvcc_architectures out flag prefix)
  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} ${flag}
    OUTPUT_VARIABLE listing ERROR_QUIET RESULT_VARIABLE status)
  set(numbers)
  if(status EQUAL 0)
    string(REGEX MATCHALL "${prefix}[0-9]+[a-z]?" words "${listing}")
    foreach(word IN LISTS words)
      if(word MATCHES "^${prefix}([0-9]+)$")
        list(APPEND numbers ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endif()
  list(SORT numbers COMPARE NATURAL)
  set(${out} ${numbers} PARENT_SCOPE)
endfunction()

# "90" -> "9.0", "120" -> "12.0"
function(_pmpp_capability out number)
  math(EXPR major "${number} / 10")
  math(EXPR minor "${number} % 10")
  set(${out} "${major}.${minor}" PARENT_SCOPE)
endfunction()

# The user's list, checked entry by entry against what this nvcc compiles.
function(_pmpp_check_requested_architectures request origin machine_code ptx)
  if(request MATCHES "^(native|all|all-major)$")
    return()  # CMake resolves these itself, against this toolkit
  endif()
  set(known "")
  foreach(number IN LISTS ptx)
    _pmpp_capability(cc ${number})
    string(APPEND known " ${cc}")
  endforeach()
  foreach(entry IN LISTS request)
    if(NOT entry MATCHES "^([0-9]+)[a-z]?(-real|-virtual)?$")
      message(FATAL_ERROR "${origin}=${request}: '${entry}' is not an architecture; write compute capability "
        "x 10, e.g. 89 for 8.9, optionally with -real (machine code only) or -virtual (PTX only).")
    endif()
    set(number ${CMAKE_MATCH_1})
    set(kinds ${machine_code})
    if(CMAKE_MATCH_2 STREQUAL "-virtual")
      set(kinds ${ptx})
    endif()
    _pmpp_capability(cc ${number})
    if(NOT number IN_LIST kinds)
      message(FATAL_ERROR "${origin}=${request}: CUDA ${CMAKE_CUDA_COMPILER_VERSION} cannot compile for compute "
        "capability ${cc}; it compiles for${known}. Choose from those (an older one with -virtual gives PTX "
        "that the driver compiles for newer GPUs), or use a toolkit that knows ${cc}.")
    endif()
    if(number LESS PMPP_OLDEST_SUPPORTED_CUDA_ARCHITECTURE)
      message(WARNING "${origin}=${request}: compute capability ${cc} is older than this project supports "
        "(7.5 and newer); the build may work but is not tested there.")
    endif()
  endforeach()
endfunction()

# <out>: each compute capability of this machine's GPUs once, as "NN" (machine code plus PTX); GPUs
# the toolkit cannot compile for are reported and left out. <description>: what was found.
function(_pmpp_detect_gpu_architectures out description machine_code ptx)
  set(${out} "" PARENT_SCOPE)
  set(${description} "" PARENT_SCOPE)
  find_program(PMPP_NVIDIA_SMI nvidia-smi NO_CACHE)
  if(NOT PMPP_NVIDIA_SMI)
    return()
  endif()
  # Old drivers' nvidia-smi does not know compute_cap: that fails, and the build is made as without a GPU.
  execute_process(COMMAND ${PMPP_NVIDIA_SMI} --query-gpu=name,compute_cap --format=csv,noheader
    OUTPUT_VARIABLE listing ERROR_QUIET RESULT_VARIABLE status TIMEOUT 30)
  if(NOT status EQUAL 0)
    return()
  endif()
  string(REPLACE "\n" ";" lines "${listing}")
  set(numbers)
  set(found)
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^(.+), *([0-9]+)\\.([0-9]+) *$")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    set(number "${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
    list(APPEND found "${name} (${CMAKE_MATCH_2}.${CMAKE_MATCH_3})")
    if(number LESS PMPP_OLDEST_SUPPORTED_CUDA_ARCHITECTURE)
      message(WARNING "${name}: compute capability ${CMAKE_MATCH_2}.${CMAKE_MATCH_3} is older than this project "
        "supports (7.5 and newer); it is left out of the build.")
    elseif(NOT number IN_LIST machine_code)
      message(WARNING "${name}: CUDA ${CMAKE_CUDA_COMPILER_VERSION} cannot compile for compute capability "
        "${CMAKE_MATCH_2}.${CMAKE_MATCH_3}; it is left out of the build, which runs there only through PTX "
        "that the driver compiles. A newer CUDA toolkit compiles for it.")
    else()
      list(APPEND numbers ${number})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES numbers)
  list(REMOVE_DUPLICATES found)
  list(JOIN found ", " found)
  set(${out} ${numbers} PARENT_SCOPE)
  set(${description} "${found}" PARENT_SCOPE)
endfunction()

function(pmpp_cuda_architectures_choose)
  _pmpp_nvcc_architectures(machine_code --list-gpu-code sm_)
  _pmpp_nvcc_architectures(ptx --list-gpu-arch compute_)
  if(NOT machine_code OR NOT ptx)
    message(FATAL_ERROR "${CMAKE_CUDA_COMPILER} did not list the GPU architectures it compiles for "
      "(--list-gpu-code, --list-gpu-arch); CUDA 12.4 or newer is needed.")
  endif()

  set(request "${PMPP_CUDA_ARCHITECTURES_REQUEST}")
  if(NOT request STREQUAL "")
    _pmpp_check_requested_architectures("${request}" ${PMPP_CUDA_ARCHITECTURES_ORIGIN} "${machine_code}" "${ptx}")
    set(chosen "${request}")
    set(why "set by ${PMPP_CUDA_ARCHITECTURES_ORIGIN}")
    unset(PMPP_CUDA_ARCHITECTURES_AUTO CACHE)
  else()
    _pmpp_detect_gpu_architectures(chosen gpus "${machine_code}" "${ptx}")
    if(chosen)
      set(why "this machine's GPUs: ${gpus}")
    elseif(gpus)
      # GPUs this toolkit cannot compile for (the warnings above say why): the newest PTX it makes, which
      # the driver compiles for a GPU newer than the toolkit.
      list(GET ptx -1 newest)
      _pmpp_capability(cc ${newest})
      set(chosen ${newest}-virtual)
      string(CONCAT why "${gpus}: none compiled for by CUDA ${CMAKE_CUDA_COMPILER_VERSION}; PTX ${cc}, the newest "
        "it makes, which the driver compiles for newer GPUs")
    else()
      set(oldest "")
      foreach(number IN LISTS ptx)
        if(oldest STREQUAL "" AND NOT number LESS PMPP_OLDEST_SUPPORTED_CUDA_ARCHITECTURE)
          set(oldest ${number})
        endif()
      endforeach()
      _pmpp_capability(cc ${oldest})
      set(chosen ${oldest}-virtual)
      string(CONCAT why "no GPU found: PTX for ${cc} alone, the quickest build that compiles every kernel; a GPU "
        "runs it through its driver; for machine code choose CUDAARCHS=86 or -DCMAKE_CUDA_ARCHITECTURES=86")
    endif()
    set(PMPP_CUDA_ARCHITECTURES_AUTO "${chosen}" CACHE INTERNAL "CUDA architectures chosen by CudaArchitectures.cmake")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${chosen}" CACHE STRING
    "GPU architectures to build for (compute capability x 10; -real: machine code only, -virtual: PTX only)" FORCE)
  # The supported list travels into the programs, which suggest a rebuild the toolkit can do.
  set(PMPP_CUDA_COMPILABLE_ARCHITECTURES "${ptx}" PARENT_SCOPE)
  message(STATUS "CUDA architectures: ${chosen} (${why})")
endfunction()

# pmpp_compile_for_sm90a(<source>...): where the build makes machine code for compute capability 9.0,
# compile these sources for sm_90a as well: the target with Hopper's own instructions (wgmma), which
# plain sm_90 code does not have and later GPUs do not promise to keep. On a Hopper GPU the driver then
# loads the sm_90a code; the code that uses it asks at run time which code was loaded, and says so
# where it cannot run.
function(pmpp_compile_for_sm90a)
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(arch MATCHES "^90(-real)?$")
      set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS "--generate-code=arch=compute_90a,code=sm_90a")
      return()
    endif()
  endforeach()
endfunction()
