# NCCL and MPI for the multi-GPU programs.
#
# NCCL: the first of these that holds both nccl.h and libnccl wins: -DNCCL_ROOT=<dir> (or the
# environment's NCCL_ROOT), the CUDA toolkit's folders, the system's (/usr, /usr/local), and the
# nvidia-nccl-cu13 or nvidia-nccl-cu12 Python wheel of the python3 on PATH. Defines the imported target
# pmpp_nccl and PMPP_NCCL_VERSION when found.
# MPI: CMake's FindMPI (Debian and Ubuntu: libopenmpi-dev), target MPI::MPI_CXX, and PMPP_MPI_NAME, the
# first line its launcher prints about itself.
set(_nccl_candidates)  # "include dir|library dir" pairs, in the order above
foreach(root IN ITEMS "${NCCL_ROOT}" "$ENV{NCCL_ROOT}")
  if(root)
    list(APPEND _nccl_candidates "${root}/include|${root}/lib" "${root}/include|${root}/lib64")
  endif()
endforeach()
foreach(include_dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _nccl_candidates "${include_dir}|${CUDAToolkit_LIBRARY_DIR}")
endforeach()
list(APPEND _nccl_candidates "/usr/include|/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}" "/usr/include|/usr/lib"
     "/usr/local/include|/usr/local/lib")
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
    OUTPUT_VARIABLE _nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _nccl_wheel_status)
  if(_nccl_wheel_status EQUAL 0 AND _nccl_wheel)
    list(APPEND _nccl_candidates "${_nccl_wheel}/include|${_nccl_wheel}/lib")
  endif()
endif()

include(${PROJECT_SOURCE_DIR}/cmake/ToolkitLibrary.cmake)  # pmpp_owning_toolkit
get_filename_component(_nccl_toolkit "${CUDAToolkit_BIN_DIR}/.." REALPATH)
unset(PMPP_NCCL_LIBRARY)
foreach(candidate IN LISTS _nccl_candidates)
  string(REPLACE "|" ";" candidate "${candidate}")
  list(GET candidate 0 _nccl_include)
  list(GET candidate 1 _nccl_lib_dir)
  if(EXISTS "${_nccl_include}/nccl.h")
    # The wheel ships libnccl.so.2 only, without the development link libnccl.so.
    find_library(_nccl_library NAMES nccl libnccl.so.2 PATHS "${_nccl_lib_dir}" NO_DEFAULT_PATH NO_CACHE)
    # A copy that belongs to another CUDA toolkit (a system folder may link into one) would need that
    # toolkit's runtime: pass it by.
    set(_nccl_foreign "")
    foreach(file IN ITEMS "${_nccl_include}/nccl.h" "${_nccl_library}")
      pmpp_owning_toolkit(_nccl_owner "${file}")
      if(_nccl_owner AND NOT _nccl_owner STREQUAL _nccl_toolkit)
        set(_nccl_foreign "${_nccl_owner}")
      endif()
    endforeach()
    if(_nccl_library AND NOT _nccl_foreign)
      set(PMPP_NCCL_LIBRARY "${_nccl_library}")
      set(PMPP_NCCL_INCLUDE_DIR "${_nccl_include}")
      break()
    endif()
  endif()
endforeach()

if(PMPP_NCCL_LIBRARY)
  file(STRINGS "${PMPP_NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  set(PMPP_NCCL_VERSION "")
  foreach(part IN ITEMS MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${part} +([0-9]+)" _match "${_nccl_version_lines}")
    string(APPEND PMPP_NCCL_VERSION "${CMAKE_MATCH_1}.")
  endforeach()
  string(REGEX REPLACE "\\.$" "" PMPP_NCCL_VERSION "${PMPP_NCCL_VERSION}")
  add_library(pmpp_nccl UNKNOWN IMPORTED)
  set_target_properties(pmpp_nccl PROPERTIES
    IMPORTED_LOCATION "${PMPP_NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${PMPP_NCCL_INCLUDE_DIR}")
endif()

# The C interface, called from C++ (the project enables no C compiler, and MPI's C++ bindings are deprecated).
find_package(MPI COMPONENTS CXX QUIET)
if(MPI_CXX_FOUND)
  # Which MPI, from its launcher: "mpirun (Open MPI) 4.1.6" (the tests pass Open MPI its own flags).
  set(PMPP_MPI_NAME "MPI ${MPI_CXX_VERSION}")
  if(MPIEXEC_EXECUTABLE)
    execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mpi_version ERROR_QUIET TIMEOUT 20)
    string(REGEX MATCH "[^\n]+" _mpi_first_line "${_mpi_version}")
    if(_mpi_first_line)
      set(PMPP_MPI_NAME "${_mpi_first_line}")
    endif()
  endif()
endif()
