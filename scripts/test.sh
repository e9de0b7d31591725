#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test:
#  1. the command-line tests and (as root) the end-to-end suite on the
#     testbed, then the unit tests (build/);
#  2. the unit and command-line tests again under AddressSanitizer and
#     UndefinedBehaviorSanitizer (build-sanitize/): any finding fails;
#  3. every fuzz target for FUZZ_SECONDS each (default 20; scripts/fuzz.sh).
#
# Ordered for a 2-core machine (docs/building.md has the phase tables):
# only what the end-to-end tests need (clusterctl and its agent) is built
# before them, while the testbed's base image is prepared beside it. The
# end-to-end tests mostly wait on their nodes, so the rest (the unit tests,
# the sanitizer and fuzz builds) compiles meanwhile in the idle CPU
# scheduling class (it takes only what the tests leave). Compiles go through ccache (cmake/Ccache.cmake). A table of
# each phase's seconds ends the output.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/phases.sh
trap phase_report EXIT
root=$([ "$(id -u)" -eq 0 ] && echo yes || echo no)

phase dependencies scripts/install-deps.sh --testbed --fuzz --daemon
prepare_testbed() { source tests/e2e/env.sh && tests/testbed/testbed prepare; }
[ "$root" = yes ] && phase_start_background "testbed: base image" prepare_testbed
phase "build: build/ clusterctl, agent" scripts/build.sh clusterctl clusterctl-agent
status=0
if [ "$root" = yes ]; then phase_wait_background "testbed: base image" || status=1; fi
remaining_builds() { scripts/build.sh unit_tests && scripts/build.sh --sanitize && scripts/fuzz.sh --build-only; }
phase_start_background --low-priority "build: unit tests, build-sanitize/, build-fuzz/" remaining_builds

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
ctest_phase build "ctest build/" --timeout 3600 -E '^unit$' || status=1
phase_wait_background "build: unit tests, build-sanitize/, build-fuzz/" || status=1
ctest_phase build "ctest build/" -R '^unit$' || status=1
ctest_phase build-sanitize "ctest build-sanitize/ (ASan+UBSan)" -R '^(unit|cli)$' || status=1

phase "fuzz: ${FUZZ_SECONDS:-20} s per target" scripts/fuzz.sh "${FUZZ_SECONDS:-20}" || status=1
exit $status
