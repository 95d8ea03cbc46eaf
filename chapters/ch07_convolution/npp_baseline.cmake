# NPP for the chapter-7 library rows (nppiFilter in the convolution program, nppiFilterBorder in the
# image filter): the filtering library libnppif and its core libnppc, which find_package(CUDAToolkit)
# offers as CUDA::nppif and CUDA::nppc where the toolkit has them. Defines the library pmpp_ch07_npp
# (npp_support.cpp: availability, version, the reversed filter) and, with NPP, gives its users
# PMPP_HAVE_NPP; without NPP, or with -DPMPP_WITH_NPP=OFF, the programs say "NPP not available".
include_guard(GLOBAL)
option(PMPP_WITH_NPP "Measure the chapter-7 programs against NPP where the CUDA toolkit has it" ON)
add_library(pmpp_ch07_npp STATIC ${CMAKE_CURRENT_LIST_DIR}/npp_support.cpp)
target_include_directories(pmpp_ch07_npp PUBLIC ${PROJECT_SOURCE_DIR}/chapters)
target_link_libraries(pmpp_ch07_npp PUBLIC pmpp_common PRIVATE pmpp_warnings)
if(PMPP_WITH_NPP AND TARGET CUDA::nppif AND TARGET CUDA::nppc)
  message(STATUS "ch07: NPP: CUDA::nppif and CUDA::nppc of ${CUDAToolkit_LIBRARY_DIR}")
  target_link_libraries(pmpp_ch07_npp PUBLIC CUDA::nppif CUDA::nppc)
  target_compile_definitions(pmpp_ch07_npp PUBLIC PMPP_HAVE_NPP)
elseif(NOT PMPP_WITH_NPP)
  message(STATUS "ch07: NPP not used (PMPP_WITH_NPP is OFF); the programs say so in their table")
else()
  message(STATUS "ch07: NPP not used: no libnppif and libnppc in ${CUDAToolkit_LIBRARY_DIR}; the programs "
                 "say so in their table")
endif()
