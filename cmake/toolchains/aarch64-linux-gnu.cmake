# Cross-compiles for 64-bit Arm Linux (Grace CPUs: GH200, GB200) with
# Debian's g++-aarch64-linux-gnu. The main build uses it for its aarch64
# sub-build of the node programs (cmake/Aarch64NodePrograms.cmake); by hand:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DCLUSTERCTL_NODE_PROGRAMS_ONLY=ON
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
# Libraries and headers from the cross toolchain's tree (Debian's
# libc6-dev-arm64-cross, libstdc++-12-dev-arm64-cross), programs from the
# build machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
