# Unit tests live beside the code as *_test.cc and link into one doctest binary;
# each library appends its test sources to this global list.
set_property(GLOBAL PROPERTY CLUSTERCTL_UNIT_TEST_SOURCES "")
function(clusterctl_unit_tests)
  foreach(src ${ARGN})
    set_property(GLOBAL APPEND PROPERTY CLUSTERCTL_UNIT_TEST_SOURCES
                 ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  endforeach()
endfunction()

# All dependencies are Debian packages (see scripts/install-deps.sh for the list
# and docs/building.md for the dnf equivalents).

# The node programs' sub-build (CLUSTERCTL_NODE_PROGRAMS_ONLY: another
# architecture's clusterctl-agent and clusterctl-health, linked statically,
# and their tests) needs nlohmann/json and doctest only. Both are headers, the
# same on every architecture (Architecture: all in Debian): the build
# machine's copies are used, from a directory holding nothing else
# (-isystem /usr/include would put the build machine's libc headers before
# the cross compiler's).
if(CLUSTERCTL_NODE_PROGRAMS_ONLY)
  set(_host_headers ${PROJECT_BINARY_DIR}/host-headers)
  file(MAKE_DIRECTORY ${_host_headers})
  foreach(header nlohmann/json.hpp doctest/doctest.h)
    get_filename_component(_dir ${header} DIRECTORY)
    find_path(_found_${_dir} ${header} PATHS /usr/include NO_CMAKE_FIND_ROOT_PATH NO_DEFAULT_PATH REQUIRED)
    file(CREATE_LINK ${_found_${_dir}}/${_dir} ${_host_headers}/${_dir} SYMBOLIC)
  endforeach()
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE ${_host_headers})
  add_library(doctest::doctest INTERFACE IMPORTED)
  target_include_directories(doctest::doctest SYSTEM INTERFACE ${_host_headers})
  return()
endif()

find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
find_package(doctest REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(libssh REQUIRED)

