#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test:
#  1. the unit tests, the command-line tests and (as root) the end-to-end
#     suite on the testbed (build/);
#  2. the unit and command-line tests again under AddressSanitizer and
#     UndefinedBehaviorSanitizer (build-sanitize/): any finding fails;
#  3. every fuzz target for FUZZ_SECONDS each (default 20; scripts/fuzz.sh).
#
# Ordered for a 2-core machine (docs/building.md has the phase tables): the
# testbed's base image is prepared while build/ compiles. Nothing compiles
# while the end-to-end tests run: even in the idle CPU class a compile made
# them up to 1.9x slower. Compiles go through ccache (cmake/Ccache.cmake).
# A table of each phase's seconds, and of each ctest test's checks, ends
# the output.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/phases.sh
trap phase_report EXIT
root=$([ "$(id -u)" -eq 0 ] && echo yes || echo no)
status=0

phase dependencies scripts/install-deps.sh --testbed --fuzz --daemon
# Both releases: e2e_trixie boots Debian 13 (issue 49); and Debian 12's
# arm64 image, built under qemu-user (e2e_arm64, issue 52: about 5 minutes
# of one core, docs/building.md).
prepare_testbed() {
  source tests/e2e/env.sh && tests/testbed/testbed prepare && tests/testbed/testbed prepare --release trixie &&
    tests/testbed/testbed prepare --arch arm64
}
[ "$root" = yes ] && phase_start_background "testbed: base image" prepare_testbed
phase "build: build/" scripts/build.sh
if [ "$root" = yes ]; then phase_wait_background "testbed: base image" || status=1; fi

if [ "$root" = no ]; then
  echo "################################################################"
  echo "## NOT ROOT: the end-to-end tests (testbed) will be SKIPPED.   ##"
  echo "## Run this script as root to run them.                        ##"
  echo "################################################################"
fi
# ctest_phase DIR NAME [ARGS...]: runs ctest in DIR and records each test's seconds and checks.
ctest_phase() {
  local dir=$1 name=$2 rc=0 test seconds result checks
  shift 2
  echo "== $name"
  (cd "$dir" && ctest --output-on-failure "$@") || rc=$?
  while IFS=$'\t' read -r test seconds result checks; do
    phase_record "$name: $test" "$seconds" "$result; checks: $checks"
  done < <(scripts/ctest-report.py "$dir")
  return $rc
}
ctest_phase build "ctest build/" --timeout 3600 -LE heavy || status=1  # heavy: tests/CMakeLists.txt

phase "build: build-sanitize/" scripts/build.sh --sanitize || status=1
# unit and cli side by side (-j2): each is one process on one core, and
# neither touches what the other does (temporary directories of their own).
ctest_phase build-sanitize "ctest build-sanitize/ (ASan+UBSan)" -R '^(unit|cli)$' -j2 || status=1

phase "build: build-fuzz/" scripts/fuzz.sh --build-only || status=1
phase "fuzz: ${FUZZ_SECONDS:-20} s per target" scripts/fuzz.sh "${FUZZ_SECONDS:-20}" || status=1
exit $status
