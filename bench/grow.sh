#!/usr/bin/env bash
# Grows the README's cluster from 3 to 5 nodes (issue 49: a grow on Debian
# 13 touches what it touches on Debian 12) and reports, per host, the steps
# the grow changed, the plan's prediction beside them, the wall times, and
# whether the next deploy changes nothing.
#
#   sudo bench/grow.sh [--release bookworm|trixie] [--running] [OUTDIR]
#
# Without --running: the developer's testbed (scripts/setup.sh's) is taken
# down and booted fresh as setup.sh boots it (`up 3 --release R --gpus 2
# --hcas 1 --services`), and deployed once. With --running: the 3-node
# testbed scripts/setup.sh left up, already deployed, is grown as it is
# (its release is the testbed's). Either way `testbed up 5 --gpus 2 --hcas 1`
# adds node04-05 (compute, NFS clients) and rewrites the inventory; `plan`,
# then `deploy`, then `deploy` again. OUTDIR (default a new /tmp directory)
# keeps the events (grow-plan.json, grow.json, after.json) and
# changed-steps.txt, the table docs/platforms.md compares. The testbed is
# down at the end. Exit 0 when both deploys converge and the last one
# changes nothing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
RELEASE="" RUNNING=0 OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --release) RELEASE=${2:?--release needs bookworm or trixie}; shift 2 ;;
    --running) RUNNING=1; shift ;;
    -*) echo "usage: bench/grow.sh [--release bookworm|trixie] [--running] [OUTDIR]" >&2; exit 2 ;;
    *) OUT=$1; shift ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "needs root (the testbed)"; exit 77; }
OUT=${OUT:-$(mktemp -d /tmp/clusterctl-grow-XXXXXX)}
mkdir -p "$OUT"
TB=$(realpath tests/testbed/testbed)
CLUSTERCTL=$(realpath build/clusterctl)
trap '$TB down >/dev/null 2>&1' EXIT
trap 'exit 143' TERM INT
now_ms() { echo $(($(date +%s%N) / 1000000)); }
seconds() { printf '%d.%d s' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# deploy NAME: deploy --json into $OUT/NAME.json; prints its exit status and wall time.
deploy() {
  local start rc
  start=$(now_ms)
  "$CLUSTERCTL" deploy --json "$inventory" >"$OUT/$1.json" 2>"$OUT/$1.err"
  rc=$?
  echo "# $1 deploy: exit $rc in $(seconds $(($(now_ms) - start)))"
  return $rc
}

if [ "$RUNNING" -eq 1 ]; then
  inventory=$($TB inventory) || { echo "no testbed runs (--running needs scripts/setup.sh's)"; exit 1; }
  grep -q '^  node\[01-03\]:' "$inventory" || { echo "--running needs a 3-node testbed: $inventory"; exit 1; }
else
  $TB down >/dev/null 2>&1
  start=$(now_ms)
  inventory=$($TB up 3 --release "${RELEASE:-bookworm}" --gpus 2 --hcas 1 --services 2>"$OUT/up.err") ||
    { tail -20 "$OUT/up.err"; echo "testbed up failed"; exit 1; }
  echo "# testbed up 3: $(seconds $(($(now_ms) - start)))"
  deploy first || { tail -20 "$OUT/first.err"; exit 1; }
fi
echo "# nodes: $($TB exec node01 sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release)"
deploy before || { tail -20 "$OUT/before.err"; exit 1; }  # the 3 nodes converged: nothing left to change

start=$(now_ms)
inventory=$($TB up 5 --gpus 2 --hcas 1 2>"$OUT/up5.err") || { tail -20 "$OUT/up5.err"; echo "testbed up 5 failed"; exit 1; }
echo "# testbed up 5 (node04-05 added): $(seconds $(($(now_ms) - start)))"
"$CLUSTERCTL" plan --json "$inventory" >"$OUT/grow-plan.json" 2>"$OUT/grow-plan.err"
deploy grow
grow_rc=$?
deploy after
after_rc=$?

# Per host: the steps the grow changed (old hosts by name; new hosts by
# count), and the old hosts' steps the plan predicted but the deploy did not
# change or the reverse.
python3 - "$OUT/grow-plan.json" "$OUT/grow.json" "$OUT/after.json" >"$OUT/changed-steps.txt" <<'PY'
import json, sys
def steps(path, status):
    out = {}
    for line in open(path):
        try: e = json.loads(line)
        except ValueError: continue
        if e.get("event") == "step" and e.get("status") == status:
            out.setdefault(e["host"], set()).add(e["step"])
    return out
predicted, changed, after = steps(sys.argv[1], "would-change"), steps(sys.argv[2], "changed"), steps(sys.argv[3], "changed")
for host in sorted(set(predicted) | set(changed)):
    got, want = changed.get(host, set()), predicted.get(host, set())
    if host in ("node04", "node05"):
        print(f"{host} (new): {len(got)} steps changed, {len(want)} predicted")
    else:
        print(f"{host}: {', '.join(sorted(got)) or '-'}")
        if got != want:
            print(f"{host}   plan differs: predicted only {sorted(want - got)}; changed only {sorted(got - want)}")
for host in sorted(after):
    print(f"{host}: the next deploy changed {', '.join(sorted(after[host]))}")
PY
cat "$OUT/changed-steps.txt"
echo "# kept in $OUT"
[ "$grow_rc" -eq 0 ] && [ "$after_rc" -eq 0 ] && ! grep -q 'the next deploy changed' "$OUT/changed-steps.txt"
