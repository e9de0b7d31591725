#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test
# (unit tests, command-line tests, and the end-to-end suite on the testbed
# when run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --testbed
scripts/build.sh
if [ "$(id -u)" -ne 0 ]; then
  echo "################################################################"
  echo "## NOT ROOT: the end-to-end tests (testbed) will be SKIPPED.   ##"
  echo "## Run this script as root to run them.                        ##"
  echo "################################################################"
fi
cd build
ctest --output-on-failure --timeout 3600
