# Phase timing for scripts/test.sh: each phase's wall time and outcome, and
# a table of them at the end (docs/building.md keeps the before/after).
#
#   phase NAME CMD...             runs CMD in the foreground, records its seconds;
#                                 its output also goes to build-logs/NAME.log
#                                 (CMD runs in a subshell: what it sets stays there)
#   phase_start_background NAME CMD...   starts CMD in the background, output to
#                                 build-logs/NAME.log (NAME as a file name)
#   phase_wait_background NAME    waits for it; prints its log's tail on failure
#   phase_record NAME SECONDS STATUS   adds a row measured elsewhere (ctest's tests)
#   phase_report                  prints the table, then the last lines of each
#                                 failed phase's log (a CI log shown cut in its
#                                 middle still names what failed)
#
# A phase's status is ok or FAILED (exit N); the script decides what a
# failure means (test.sh goes on and fails at the end).

PHASE_ROWS=()
PHASE_FAILED_LOGS=()  # "NAME<TAB>LOG" of each failed phase with a log
PHASE_STARTED_AT=$(date +%s)
declare -A PHASE_BACKGROUND_PID=() PHASE_BACKGROUND_START=()

phase_log() { echo "build-logs/$(tr -cs 'A-Za-z0-9' '-' <<<"$1" | sed 's/-$//').log"; }

phase_record() { PHASE_ROWS+=("$1"$'\t'"$2"$'\t'"$3"); }

phase() {
  local name=$1 start rc=0 log
  shift
  echo "== $name"
  mkdir -p build-logs
  log=$(phase_log "$name")
  rm -f "$log.rc"
  start=$(date +%s)
  # CMD's exit status through the pipe to tee, whatever pipefail says.
  { "$@" || echo $? >"$log.rc"; } 2>&1 | tee "$log"
  [ -f "$log.rc" ] && rc=$(cat "$log.rc") && rm -f "$log.rc"
  phase_record "$name" $(($(date +%s) - start)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED (exit $rc)")"
  [ $rc -ne 0 ] && PHASE_FAILED_LOGS+=("$name"$'\t'"$log")
  return $rc
}

phase_start_background() {
  local name=$1
  shift
  mkdir -p build-logs
  echo "== $name (in the background; log: $(phase_log "$name"))"
  PHASE_BACKGROUND_START[$name]=$(date +%s)
  # A subshell, so CMD may be a shell function. It writes when it ended
  # beside its log, so its row shows its own time.
  ( rc=0
    "$@" || rc=$?
    date +%s >"$(phase_log "$name").ended"
    exit $rc ) >"$(phase_log "$name")" 2>&1 </dev/null &
  PHASE_BACKGROUND_PID[$name]=$!
}

phase_wait_background() {
  local name=$1 rc=0 waited
  waited=$(date +%s)
  wait "${PHASE_BACKGROUND_PID[$name]}" || rc=$?
  local start=${PHASE_BACKGROUND_START[$name]} ended
  ended=$(cat "$(phase_log "$name").ended" 2>/dev/null || date +%s)
  phase_record "$name (background)" $((ended - start)) \
    "$([ $rc -eq 0 ] && echo ok || echo "FAILED (exit $rc)"); waited for it $(($(date +%s) - waited)) s"
  if [ $rc -ne 0 ]; then
    echo "== $name FAILED (exit $rc); the end of $(phase_log "$name"):"
    tail -30 "$(phase_log "$name")"
    PHASE_FAILED_LOGS+=("$name"$'\t'"$(phase_log "$name")")
  fi
  return $rc
}

phase_report() {
  local total=$(($(date +%s) - PHASE_STARTED_AT)) row
  echo
  echo "== phases (wall seconds; background phases overlap the ones after them)"
  printf '%-48s %8s  %s\n' PHASE SECONDS STATUS
  for row in "${PHASE_ROWS[@]}"; do
    IFS=$'\t' read -r name seconds status <<<"$row"
    printf '%-48s %8s  %s\n' "$name" "$seconds" "$status"
  done
  printf '%-48s %8s\n' "total" "$total"
  for row in "${PHASE_FAILED_LOGS[@]}"; do
    IFS=$'\t' read -r name log <<<"$row"
    echo
    echo "== $name FAILED; the last 15 lines of $log:"
    tail -15 "$log"
  done
}
