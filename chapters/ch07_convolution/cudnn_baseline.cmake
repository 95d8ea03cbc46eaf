# cuDNN for the chapter-7 library baseline, if this machine has it. Defines the target
# pmpp_ch07_cudnn: with cuDNN it carries the include directory, the library and PMPP_HAVE_CUDNN;
# without, it is empty and the side-by-side program shows "cuDNN not available in this build".
# Debian/Ubuntu packages put cudnn.h under /usr/include/x86_64-linux-gnu; NVIDIA's archives install
# into the CUDA toolkit's directories.
find_path(PMPP_CUDNN_INCLUDE_DIR cudnn.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include/x86_64-linux-gnu /usr/local/cuda/include)
find_library(PMPP_CUDNN_LIBRARY cudnn
  HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib /usr/local/cuda/lib64)

add_library(pmpp_ch07_cudnn INTERFACE)
if(PMPP_CUDNN_INCLUDE_DIR AND PMPP_CUDNN_LIBRARY)
  message(STATUS "ch07: cuDNN baseline enabled (${PMPP_CUDNN_LIBRARY})")
  target_include_directories(pmpp_ch07_cudnn INTERFACE ${PMPP_CUDNN_INCLUDE_DIR})
  target_link_libraries(pmpp_ch07_cudnn INTERFACE ${PMPP_CUDNN_LIBRARY})
  target_compile_definitions(pmpp_ch07_cudnn INTERFACE PMPP_HAVE_CUDNN)
else()
  message(STATUS "ch07: cuDNN not found; the side-by-side program will say so in its table")
endif()
