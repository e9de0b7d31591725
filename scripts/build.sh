#!/usr/bin/env bash
# Configures and builds clusterctl (incremental on re-runs; compiles go
# through ccache when it is installed: cmake/Ccache.cmake).
#
#   scripts/build.sh [TARGET...]              build/: RelWithDebInfo with line tables only
#                                             (-g1: backtraces, perf and gdb name file:line;
#                                             BUILD_TYPE=Debug for variables), every target
#   scripts/build.sh --sanitize [TARGET...]   build-sanitize/: Debug (line tables) with AddressSanitizer
#                                             and UndefinedBehaviorSanitizer (default targets: unit_tests clusterctl)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
if [ "${1:-}" = --sanitize ]; then
  shift
  dir=build-sanitize
  configure=(-DCMAKE_BUILD_TYPE=Debug -DCLUSTERCTL_SANITIZE=address,undefined "-DCMAKE_CXX_FLAGS_DEBUG=-g1")
  targets=("$@")
  [ ${#targets[@]} -gt 0 ] || targets=(unit_tests clusterctl)
else
  dir=build
  # Full -g costs a third more compile time on this code (Boost.Asio, JSON).
  configure=(-DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
  targets=("$@")
fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" "${configure[@]}" >/dev/null
fi
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build "$dir" -j "$JOBS" --target "${targets[@]}"
else
  cmake --build "$dir" -j "$JOBS"
fi
