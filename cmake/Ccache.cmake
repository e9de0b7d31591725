# Compiles through ccache when it is installed (scripts/install-deps.sh
# installs it), so a second build of the same sources, in this tree or in a
# fresh clone at another path, reuses the objects (docs/building.md).
#
# base_dir makes the absolute paths CMake passes (sources, -I, the
# dependency files) relative to the compiler's working directory, and
# hash_dir off keeps that directory out of the key: two clones then share
# their entries. depend mode keys an entry by the headers the compiler's own
# dependency file (-MD, which CMake passes) lists, so a miss costs no extra
# preprocessor run (a cold cache would otherwise add one to every compile).
# CLUSTERCTL_CCACHE=OFF compiles without it.
option(CLUSTERCTL_CCACHE "compile through ccache when it is installed" ON)
find_program(CCACHE_PROGRAM ccache)
if(CLUSTERCTL_CCACHE AND CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  get_filename_component(_clusterctl_root "${CMAKE_CURRENT_LIST_DIR}/.." REALPATH)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${_clusterctl_root} CCACHE_NOHASHDIR=true CCACHE_DEPEND=true
      ${CCACHE_PROGRAM})
endif()
