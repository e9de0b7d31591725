#!/usr/bin/env bash
# The long kill -9 matrix on the full stack (base + munge + Slurm +
# accounting): the controller killed at random moments of a first deploy of
# a 3-node cluster ("first"), and of the deploy that grows it to 5 nodes
# ("grow"), each followed by one resuming deploy. Every trial must end with:
# the resume exits 0; deploy --verify finds nothing to change; every compute
# node idle in sinfo; and each daemon started exactly as often as in an
# uninterrupted deploy (journal counts per node): no owed restart lost, none
# done twice. Its own testbed; bounded by TRIALS and a time limit per command.
#
#   sudo scripts/fault-matrix.sh [TRIALS] [first|grow|both]     (default 50 both)
#
# Prints one line per trial and a summary (docs/reliability.md keeps the figures).
set -uo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-50}
KINDS=${2:-both}
export TESTBED_STATE=/var/lib/clusterctl-testbed-faults TESTBED_PREFIX=ctf TESTBED_SUBNET=10.213.80
TB=$(realpath tests/testbed/testbed)
CLUSTERCTL=$(realpath build/clusterctl)
WORK=$(mktemp -d /tmp/clusterctl-faults-XXXXXX)
trap '$TB down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT
[ "$(id -u)" -eq 0 ] || { echo "needs root (the testbed)"; exit 77; }

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# starts NODES...: "node unit count" for each daemon start the journal recorded
starts() {
  local n
  for n in "$@"; do
    $TB ssh "$n" "journalctl --no-pager -o cat 2>/dev/null" | awk -v node="$n" '
      /^Started (munge|slurmctld|slurmd|slurmdbd)\.service/ { unit = $2; counts[unit]++ }
      END { for (u in counts) print node, u, counts[u] }' | sort
  done
}
idle_nodes() { $TB ssh node01 "sinfo -h -o '%T %D'" 2>/dev/null | awk '$1 == "idle" { n += $2 } END { print n + 0 }'; }
verify_changed() {
  timeout 600 "$CLUSTERCTL" deploy --verify --json "$1" 2>/dev/null | grep '"event":"recap"' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["changed"])' 2>/dev/null
}
fresh() {  # fresh N: a new testbed of N nodes (2 simulated GPUs each); $INV
  $TB down >/dev/null 2>&1
  INV=$($TB up "$1" --gpus 2 2>/dev/null) || { echo "testbed up failed"; exit 1; }
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# run_trial KIND TRIAL NODES_BEFORE NODES_AFTER REFERENCE_MS REFERENCE_STARTS
run_trial() {
  local kind=$1 trial=$2 before=$3 after=$4 reference_ms=$5 reference=$6
  fresh "$before"
  if [ "$before" != "$after" ]; then
    timeout 900 "$CLUSTERCTL" deploy "$INV" >/dev/null 2>&1 || { echo "$kind $trial: setup deploy failed"; return 1; }
    INV=$($TB up "$after" --gpus 2 2>/dev/null)
  fi
  local delay=$(( reference_ms * (5 + RANDOM % 91) / 100 ))
  "$CLUSTERCTL" deploy "$INV" >"$WORK/killed.out" 2>&1 &
  local pid=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  local start; start=$(now_ms)
  timeout 900 "$CLUSTERCTL" deploy "$INV" >"$WORK/resume.out" 2>&1
  local rc=$? resume_ms=$(( $(now_ms) - start ))
  local changed idle counts verdict="converged"
  changed=$(verify_changed "$INV")
  idle=$(idle_nodes)
  counts=$(starts $(seq -f 'node%02g' 1 "$after"))
  [ "$rc" -eq 0 ] || verdict="resume exit $rc"
  [ "$changed" = 0 ] || verdict="$verdict; --verify changed ${changed:-?}"
  [ "$idle" = $((after - 1)) ] || verdict="$verdict; $idle of $((after - 1)) compute idle"
  [ "$counts" = "$reference" ] || verdict="$verdict; daemon starts differ: $(diff <(echo "$reference") <(echo "$counts") | grep '^[<>]' | paste -sd' ')"
  echo "$kind $trial: killed at ${delay} ms, resume ${resume_ms} ms: $verdict"
  [ "$verdict" = converged ] && echo "$resume_ms" >>"$WORK/$kind.ok"
  echo "$kind" >>"$WORK/$kind.runs"
}

# reference KIND BEFORE AFTER: an uninterrupted run's time and daemon starts
reference() {
  local before=$2 after=$3
  fresh "$before"
  if [ "$before" != "$after" ]; then
    timeout 900 "$CLUSTERCTL" deploy "$INV" >/dev/null 2>&1
    INV=$($TB up "$after" --gpus 2 2>/dev/null)
  fi
  local start; start=$(now_ms)
  timeout 900 "$CLUSTERCTL" deploy "$INV" >"$WORK/reference.out" 2>&1 || { echo "reference deploy failed"; tail "$WORK/reference.out"; exit 1; }
  REFERENCE_MS=$(( $(now_ms) - start ))
  REFERENCE_STARTS=$(starts $(seq -f 'node%02g' 1 "$after"))
  echo "$1: uninterrupted deploy ${REFERENCE_MS} ms; daemon starts: $(echo "$REFERENCE_STARTS" | paste -sd';')"
}

for kind in first grow; do
  [ "$KINDS" = both ] || [ "$KINDS" = "$kind" ] || continue
  if [ "$kind" = first ]; then before=3 after=3; else before=3 after=5; fi
  reference "$kind" "$before" "$after"
  for trial in $(seq "$TRIALS"); do
    run_trial "$kind" "$trial" "$before" "$after" "$REFERENCE_MS" "$REFERENCE_STARTS"
  done
  runs=$(wc -l <"$WORK/$kind.runs" 2>/dev/null || echo 0)
  ok=$(wc -l <"$WORK/$kind.ok" 2>/dev/null || echo 0)
  echo "SUMMARY $kind: $runs kills, $ok converged with every restart exactly once; resume median $(median <"$WORK/$kind.ok" 2>/dev/null) ms, max $(sort -n "$WORK/$kind.ok" 2>/dev/null | tail -1) ms"
done
