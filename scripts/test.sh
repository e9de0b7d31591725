#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test:
#  1. the unit tests, the command-line tests and (as root) the end-to-end
#     suite on the testbed (build/);
#  2. the unit and command-line tests again under AddressSanitizer and
#     UndefinedBehaviorSanitizer (build-sanitize/): any finding fails;
#  3. every fuzz target for FUZZ_SECONDS each (default 20; scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --testbed --fuzz --daemon
scripts/build.sh
if [ "$(id -u)" -ne 0 ]; then
  echo "################################################################"
  echo "## NOT ROOT: the end-to-end tests (testbed) will be SKIPPED.   ##"
  echo "## Run this script as root to run them.                        ##"
  echo "################################################################"
fi
status=0
(cd build && ctest --output-on-failure --timeout 3600) || status=1

echo "== unit and command-line tests under AddressSanitizer and UndefinedBehaviorSanitizer"
if [ ! -f build-sanitize/CMakeCache.txt ]; then
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCLUSTERCTL_SANITIZE=address,undefined >/dev/null
fi
cmake --build build-sanitize -j "${JOBS:-$(nproc)}" --target unit_tests clusterctl >/dev/null
(cd build-sanitize && ctest --output-on-failure -R '^(unit|cli)$') || status=1

echo "== fuzz targets, ${FUZZ_SECONDS:-20} s each"
scripts/fuzz.sh "${FUZZ_SECONDS:-20}" || status=1
exit $status
