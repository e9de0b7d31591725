# Shared helpers for the end-to-end tests. Each test script sources this,
# gets its own testbed (separate state directory, subnet and link names from
# a developer's testbed) and tears it down on exit.
set -u

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TESTBED="$E2E_ROOT/tests/testbed/testbed"
source "$E2E_ROOT/tests/e2e/env.sh"

failures=0
# Each result line ends with the seconds since the test started, so a slow
# part of a test shows in ctest's log (build/Testing/Temporary/LastTest.log).
pass() { echo "ok   - $* [${SECONDS}s]"; }
fail() { echo "FAIL - $* [${SECONDS}s]"; failures=$((failures + 1)); }
check() {  # check NAME COMMAND...: passes when COMMAND succeeds; returns 1 when it failed, so `check ... || show details` shows them
  local name=$1
  shift
  if "$@"; then pass "$name"; else fail "$name"; return 1; fi
}
finish() {
  echo
  if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
  echo "all checks passed"
  exit 0
}

# ctest treats 77 as "skipped".
require_root_or_skip() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIPPED: end-to-end tests need root (network namespaces, containers)"
    exit 77
  fi
}

tb() { "$TESTBED" "$@"; }
changed_steps() {  # changed_steps FILE HOST: the host's changed steps in a deploy's --json events, sorted
  python3 -c 'import json,sys
out=set()
for line in open(sys.argv[1]):
    try: e=json.loads(line)
    except ValueError: continue
    if e.get("event")=="step" and e.get("host")==sys.argv[2] and e.get("status")=="changed": out.add(e["step"])
print(",".join(sorted(out)))' "$1" "$2"
}
seconds_since() { echo $(( $(date +%s) - $1 )); }
# time_outside_steps INVENTORY DEPLOY_JSON: the seconds a deploy spent
# outside its recorded steps and up-front installs, then per host its
# recorded work (tests/e2e/time_outside_steps.py says how).
time_outside_steps() {
  local run history
  run=$(python3 "$E2E_ROOT/tests/e2e/time_outside_steps.py" --run-of "$2") || return 1
  history=$(mktemp)
  "$CLUSTERCTL" history "$1" --run "$run" --json >"$history" &&
    python3 "$E2E_ROOT/tests/e2e/time_outside_steps.py" "$history" "$2"
  rm -f "$history"
}
