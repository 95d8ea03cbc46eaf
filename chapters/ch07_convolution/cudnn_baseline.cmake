# cuDNN for the chapter-7 library baseline, if the active CUDA toolkit or the system has it (never
# another toolkit's: see cmake/ToolkitLibrary.cmake). Defines the target pmpp_ch07_cudnn: with cuDNN it
# carries the include directory, the library and PMPP_HAVE_CUDNN; without, it is empty and the
# side-by-side program shows "cuDNN not available in this build". NVIDIA's archives install cuDNN into
# the toolkit's folders, Debian/Ubuntu packages under /usr/include/<multiarch> and /usr/lib/<multiarch>.
include(${PROJECT_SOURCE_DIR}/cmake/ToolkitLibrary.cmake)
pmpp_add_toolkit_library(pmpp_ch07_cudnn NAME "ch07: cuDNN" HEADER cudnn.h LIBRARY cudnn DEFINE PMPP_HAVE_CUDNN)
