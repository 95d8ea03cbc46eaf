# Catch2 >= 3.4: the system's package first (Ubuntu 24.04: 3.4; Debian 12: bookworm-backports),
# then a download for machines that are online, then a clear message.
if(NOT PMPP_BUILD_TESTS)
  return()
endif()

find_package(Catch2 3.4 CONFIG QUIET)
if(NOT Catch2_FOUND)
  set(_catch2_archive ${PROJECT_BINARY_DIR}/_deps/Catch2-v3.4.0.tar.gz)
  if(NOT EXISTS ${_catch2_archive})
    message(STATUS "Catch2 >= 3.4 not found on this system: trying to download Catch2 3.4.0")
    file(DOWNLOAD https://github.com/catchorg/Catch2/archive/refs/tags/v3.4.0.tar.gz
         ${_catch2_archive} STATUS _catch2_status TIMEOUT 30)
    list(GET _catch2_status 0 _catch2_code)
    if(NOT _catch2_code EQUAL 0)
      file(REMOVE ${_catch2_archive})
      message(FATAL_ERROR
        "Catch2 >= 3.4 is needed for the tests and was neither found nor downloadable.\n"
        "  Debian 12: run scripts/install-dependencies (it enables bookworm-backports), or\n"
        "  Ubuntu 24.04: apt-get install libcatch2-dev, or\n"
        "  without root: build Catch2 3.4 or newer yourself, install it with --prefix ~/.local, and\n"
        "  configure with -DCMAKE_PREFIX_PATH=$HOME/.local, or\n"
        "  configure with -DPMPP_BUILD_TESTS=OFF to build the programs only.")
    endif()
  endif()
  include(FetchContent)
  FetchContent_Declare(Catch2 URL ${_catch2_archive})
  FetchContent_MakeAvailable(Catch2)
  list(APPEND CMAKE_MODULE_PATH ${catch2_SOURCE_DIR}/extras)
endif()
include(Catch)
