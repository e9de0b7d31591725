# The aarch64 builds of the programs clusterctl ships to nodes (Grace CPUs:
# GH200, GB200), from the normal build: when Debian's cross compiler
# (g++-aarch64-linux-gnu, scripts/install-deps.sh) is installed, a sub-build
# in build/aarch64 compiles this source tree with
# cmake/toolchains/aarch64-linux-gnu.cmake and CLUSTERCTL_NODE_PROGRAMS_ONLY
# (only the sources clusterctl-agent and clusterctl-health link), statically
# like the x86 builds. Its outputs are copied beside clusterctl as
#   clusterctl-agent-aarch64, clusterctl-health-aarch64
# where AgentBinaries::Discover and ShippedNodeProgram find them by their ELF
# header, and packaged beside the x86 builds (cmake/Install.cmake).
# Not with the sanitizers (their builds link dynamically).
option(CLUSTERCTL_AARCH64 "build the aarch64 node programs when aarch64-linux-gnu-g++ is installed" ON)
find_program(CLUSTERCTL_AARCH64_CXX aarch64-linux-gnu-g++)
set(CLUSTERCTL_AARCH64_BUILT OFF)
if(NOT CLUSTERCTL_AARCH64 OR CLUSTERCTL_SANITIZE)
  return()
endif()
if(NOT CLUSTERCTL_AARCH64_CXX)
  message(STATUS "aarch64 node programs: not built (no aarch64-linux-gnu-g++; scripts/install-deps.sh installs it)")
  return()
endif()
set(CLUSTERCTL_AARCH64_BUILT ON)

include(ExternalProject)
set(_aarch64_dir ${PROJECT_BINARY_DIR}/aarch64)
# BUILD_ALWAYS: the sub-build's own dependency scan decides what is stale
# (a no-op costs about a second); the default build command shares make's
# job server with this build.
ExternalProject_Add(aarch64_node_programs
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${_aarch64_dir}
  CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake
             -DCLUSTERCTL_NODE_PROGRAMS_ONLY=ON
             -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
             -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${CMAKE_CXX_FLAGS_RELWITHDEBINFO}
  INSTALL_COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_aarch64_dir}/clusterctl-agent
                  ${PROJECT_BINARY_DIR}/clusterctl-agent-aarch64
          COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_aarch64_dir}/clusterctl-health
                  ${PROJECT_BINARY_DIR}/clusterctl-health-aarch64
  BUILD_ALWAYS ON
  USES_TERMINAL_BUILD ON)
# Shipped with the controller like the x86 builds: built whenever clusterctl is.
add_dependencies(clusterctl aarch64_node_programs)

# The node programs' tests built for aarch64 (tests/CMakeLists.txt, the
# sub-build's node_unit_tests), and run under qemu-user by ctest: the agent
# protocol, request handler, facts and health tests, and the shipped
# programs themselves (tests/aarch64_node_test.sh). No container, and no
# binfmt_misc: the script runs qemu explicitly.
add_custom_target(aarch64_node_unit_tests ALL
  COMMAND ${CMAKE_COMMAND} --build ${_aarch64_dir} --target node_unit_tests
  DEPENDS aarch64_node_programs
  USES_TERMINAL)
add_test(NAME aarch64_node_tests
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/aarch64_node_test.sh ${PROJECT_BINARY_DIR} ${_aarch64_dir}/tests/node_unit_tests)
set_tests_properties(aarch64_node_tests PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
