# All dependencies are Debian packages (see scripts/install-deps.sh for the list
# and docs/building.md for the dnf equivalents).
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

# Unit tests live beside the code as *_test.cc and link into one doctest binary;
# each library appends its test sources to this global list.
set_property(GLOBAL PROPERTY CLUSTERCTL_UNIT_TEST_SOURCES "")
function(clusterctl_unit_tests)
  foreach(src ${ARGN})
    set_property(GLOBAL APPEND PROPERTY CLUSTERCTL_UNIT_TEST_SOURCES
                 ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  endforeach()
endfunction()
