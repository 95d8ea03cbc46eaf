# Libraries that come with some CUDA installations and not others (cuBLAS, cuDNN), for the library
# baselines. Each is looked for only in the active toolkit's folders and in the system's, and a file
# that belongs to another CUDA toolkit is refused, even where a system folder links to it (such as
# /usr/local/include/cudnn.h -> /usr/local/cuda-13.0/include/cudnn.h): linked into a build made with
# another toolkit, it would need that toolkit's runtime and driver.
#
#   pmpp_add_toolkit_library(<target> NAME <shown name> HEADER <file.h> LIBRARY <name>...
#                            DEFINE <macro>)
#
# Always defines the INTERFACE target <target>. Where the library is found, it carries the include
# folder, the library and the compile definition <macro>; where not, it is empty and the programs say
# in their table that the library is not in this build. The cache variables PMPP_<NAME>_INCLUDE_DIR
# and PMPP_<NAME>_LIBRARY (PMPP_HAVE_CUDNN -> PMPP_CUDNN_...) point it at another copy.
include_guard(GLOBAL)

# <out>: the CUDA toolkit that <file> belongs to, links resolved (the nearest folder above it with
# bin/nvcc, system folders aside), or "" for a file of the system's.
function(pmpp_owning_toolkit out file)
  get_filename_component(dir "${file}" REALPATH)
  get_filename_component(dir "${dir}" DIRECTORY)
  while(NOT dir MATCHES "^(/|/usr|/usr/local|)$")
    if(EXISTS "${dir}/bin/nvcc")
      set(${out} "${dir}" PARENT_SCOPE)
      return()
    endif()
    get_filename_component(dir "${dir}" DIRECTORY)
  endwhile()
  set(${out} "" PARENT_SCOPE)
endfunction()

function(pmpp_add_toolkit_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "NAME;HEADER;DEFINE" "LIBRARY")
  add_library(${target} INTERFACE)
  get_filename_component(toolkit "${CUDAToolkit_BIN_DIR}/.." REALPATH)
  string(REPLACE "_HAVE_" "_" found ${ARG_DEFINE})
  set(system_includes /usr/include/${CMAKE_LIBRARY_ARCHITECTURE} /usr/include)
  set(system_libraries /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} /usr/lib64 /usr/lib)
  find_path(${found}_INCLUDE_DIR ${ARG_HEADER}
    PATHS ${CUDAToolkit_INCLUDE_DIRS} ${system_includes} NO_DEFAULT_PATH)
  find_library(${found}_LIBRARY NAMES ${ARG_LIBRARY}
    PATHS ${CUDAToolkit_LIBRARY_DIR} ${system_libraries} NO_DEFAULT_PATH)
  set(header "${${found}_INCLUDE_DIR}")
  set(library "${${found}_LIBRARY}")

  set(missing "")
  if(NOT header OR NOT library)
    set(missing "no ${ARG_HEADER} and lib${ARG_LIBRARY} in ${toolkit} or the system's folders")
  else()
    foreach(file IN ITEMS "${header}/${ARG_HEADER}" "${library}")
      pmpp_owning_toolkit(owner "${file}")
      if(owner AND NOT owner STREQUAL toolkit)
        set(missing "${file} belongs to the CUDA toolkit in ${owner}, not to the one building (${toolkit})")
      endif()
    endforeach()
  endif()
  if(missing)
    message(STATUS "${ARG_NAME} not used: ${missing}; the programs say so in their table")
    return()
  endif()
  message(STATUS "${ARG_NAME}: ${library}")
  target_include_directories(${target} INTERFACE ${header})
  target_link_libraries(${target} INTERFACE ${library})
  target_compile_definitions(${target} INTERFACE ${ARG_DEFINE})
endfunction()
