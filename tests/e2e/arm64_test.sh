#!/usr/bin/env bash
# The mixed-architecture testbed (issue 52), in CI since its base image is
# built beside build/'s compile (scripts/test.sh; its time and last result
# are in docs/building.md):
#   - `testbed up 4 --arm64-nodes 1`: node04 is arm64 Debian under qemu-user,
#     on the same bridge as the x86_64 node01 (head) and node02, node03
#     (compute); it boots to `running` (no failed unit: the 243/CREDENTIALS
#     units are fixed)
#   - the base and Slurm roles deploy on all four (node04 from Debian's
#     arm64 packages, with the aarch64 agent and health program), and
#     `srun -N3 uname -m` on node01 prints both architectures
#   - validate's node and Slurm checks pass on node04 as on node02
#   - the second deploy, every step checked on the nodes (--verify), changes
#     nothing on node04
#   - the deploy time of node04 against node02 (the emulation's cost: not a
#     product figure) is printed
#   - node04 powers off cleanly: `systemctl poweroff` ends its container with
#     status 0, and nspawn's halt signal (SIGTERM to nspawn) halts it without
#     rescue mode
# The arm64 base image is built when it is not cached (about 5 minutes of
# one core: `testbed prepare --arch arm64` beforehand takes that out).
#
#   sudo tests/e2e/arm64_test.sh
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-arm64-XXXXXX)
# ARM64_TEST_KEEP=1 leaves the testbed up for a look (then: testbed down).
trap '[ -n "${ARM64_TEST_KEEP:-}" ] || tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
[ -x "$E2E_ROOT/build/clusterctl-agent-aarch64" ] || { echo "SKIPPED: no aarch64 agent in build/ (g++-aarch64-linux-gnu)"; exit 77; }
# The base and Slurm roles: what every compute node gets, without the MPI
# and module stacks (an hour of emulated dpkg would buy nothing here).
ROLES=hosts,users,chrony,munge,slurm-common,slurm-accounting,slurm-controller,slurm-login,slurm-node,slurm-ssh,slurm-health
# node.resources is left out: it skips on every testbed node (no expected counts).
NODE_CHECKS=reachable,clock.offset,node.disk,munge.decode,slurm.node,slurm.srun
# Each host's recorded work in a deploy (seconds), from its history.
host_seconds() { time_outside_steps "$1" "$2" | tr ' ' '\n' | sed -n "s/^$3=\(.*\)s$/\1/p"; }
nspawn_exits() { local n; n=$(grep -c "status $2\$" "$TESTBED_STATE/nodes/$1/exits.log" 2>/dev/null); echo "${n:-0}"; }
# The longest steps of a host in a run's history: "role/step=SECONDS ...".
longest_steps() {
  "$CLUSTERCTL" history "$1" --run "$2" --json | python3 -c 'import json,sys
steps=[s for s in json.load(sys.stdin)["steps"] if s["host"]==sys.argv[1]]
steps.sort(key=lambda s: s["started_at"]-s["finished_at"])
print(" ".join("%s/%s=%.1f" % (s["role"], s["step"], (s["finished_at"]-s["started_at"])/1000.0) for s in steps[:5]))' "$3"
}

tb down >/dev/null 2>&1
start=$(date +%s)
inventory=$(tb up 4 --arm64-nodes 1 2>"$WORK/up.err") || { tail -20 "$WORK/up.err"; echo "testbed up failed"; exit 1; }
echo "# up 4 --arm64-nodes 1: $(seconds_since "$start") s ($(grep -o 'booted.*' "$WORK/up.err"))"
check "node01..node03 are x86_64" test "$(for n in node01 node02 node03; do tb ssh $n uname -m; done | sort -u)" = x86_64
check "node04 is aarch64, Debian arm64 ($(tb ssh node04 uname -m), $(tb ssh node04 dpkg --print-architecture))" \
  test "$(tb ssh node04 uname -m) $(tb ssh node04 dpkg --print-architecture)" = "aarch64 arm64"
check "node04's systemd is running, no unit failed" test "$(tb ssh node04 systemctl is-system-running)" = running

start=$(date +%s)
"$CLUSTERCTL" deploy "$inventory" --roles "$ROLES" --json >"$WORK/first.json" 2>"$WORK/first.err"
rc=$?
echo "# first deploy: exit $rc in $(seconds_since "$start") s"
check "the first deploy converges" test "$rc" -eq 0 || { tail -20 "$WORK/first.err"; grep '"status":"failed"' "$WORK/first.json" | tail -3; finish; }
agents=$(tb ssh node04 'sha256sum /var/lib/clusterctl/agent/*/clusterctl-agent' 2>/dev/null | cut -d' ' -f1 | sort -u)
check "node04 got the aarch64 agent build" test "$agents" = "$(sha256sum "$E2E_ROOT/build/clusterctl-agent-aarch64" | cut -d' ' -f1)"
check "node04's Slurm health check is the aarch64 build" test "$(tb ssh node04 sha256sum /usr/local/sbin/clusterctl-health | cut -d' ' -f1)" = \
  "$(sha256sum "$E2E_ROOT/build/clusterctl-health-aarch64" | cut -d' ' -f1)"
check "node04's slurmd is Debian's arm64 package ($(tb ssh node04 dpkg-query -W -f '\${Version}:\${Architecture}' slurmd))" \
  test "$(tb ssh node04 dpkg-query -W -f '\${Architecture}' slurmd)" = arm64
arm=$(host_seconds "$inventory" "$WORK/first.json" node04)
x86=$(host_seconds "$inventory" "$WORK/first.json" node02)
echo "# EMULATION COST (not a product figure): node04 (arm64 under qemu-user) ${arm} s of recorded work, node02 (x86_64) ${x86} s, same roles"
run=$(python3 "$E2E_ROOT/tests/e2e/time_outside_steps.py" --run-of "$WORK/first.json")
echo "# longest steps, node04: $(longest_steps "$inventory" "$run" node04)"
echo "# longest steps, node02: $(longest_steps "$inventory" "$run" node02)"

# slurmd registers node04 a while after its start under emulation.
for _ in $(seq 90); do
  [ "$(tb ssh node01 "sinfo -h -N -o '%N %T'" | awk '$2 == "idle"' | wc -l)" = 3 ] && break
  sleep 1
done
archs=$(tb ssh node01 "timeout 120 srun --immediate=60 -N3 uname -m" 2>"$WORK/srun.err" | sort | paste -sd, -)
check "srun -N3 uname -m prints both architectures (got $archs)" test "$archs" = aarch64,x86_64,x86_64 ||
  { cat "$WORK/srun.err"; tb ssh node01 sinfo -N; }
# A cluster of two architectures: each node's is its Slurm feature.
features=$(tb ssh node01 "sinfo -h -N -o '%N %f'" | sort -u | paste -sd, -)
check "Slurm lists each compute node's architecture as its feature (got $features)" \
  test "$features" = "node02 x86_64,node03 x86_64,node04 aarch64"
arm=$(tb ssh node01 "timeout 120 srun --immediate=60 -C aarch64 uname -m" 2>>"$WORK/srun.err")
check "srun -C aarch64 runs on the arm64 node (got $arm)" test "$arm" = aarch64

"$CLUSTERCTL" validate "$inventory" --checks "$NODE_CHECKS" --json >"$WORK/validate.json" 2>"$WORK/validate.err"
for host in node02 node04; do
  verdicts=$(python3 -c 'import json,sys
rs=[r for r in json.load(open(sys.argv[1]))["results"] if r.get("subject")==sys.argv[2]]
print(" ".join(sorted("%s=%s" % (r["check"], r["result"]) for r in rs)))' "$WORK/validate.json" "$host" 2>/dev/null)
  check "validate's node checks pass on $host ($verdicts)" \
    sh -c 'test -n "$1" && test -z "$(echo "$1" | tr " " "\n" | grep -v "=pass$")"' - "$verdicts"
done
check "validate's slurm.srun passes across node[02-04]" python3 -c 'import json,sys
sys.exit(0 if [r for r in json.load(open(sys.argv[1]))["results"] if r["check"]=="slurm.srun" and r["result"]=="pass"] else 1)' "$WORK/validate.json"

start=$(date +%s)
# --verify: every step checked on the nodes (a plain re-run trusts the state store).
"$CLUSTERCTL" deploy "$inventory" --verify --roles "$ROLES" --json >"$WORK/second.json" 2>&1
rc=$?
echo "# second deploy: exit $rc in $(seconds_since "$start") s"
check "the second deploy changes nothing on node04 (changed: $(changed_steps "$WORK/second.json" node04))" \
  test "$rc" -eq 0 -a -z "$(changed_steps "$WORK/second.json" node04)"

start=$(date +%s)
tb ssh node04 systemctl poweroff >/dev/null 2>&1
for _ in $(seq 120); do [ "$(nspawn_exits node04 0)" -ge 1 ] && break; sleep 1; done
check "systemctl poweroff ends node04's container with status 0 ($(seconds_since "$start") s)" test "$(nspawn_exits node04 0)" -eq 1
tb start node04 >/dev/null 2>&1
check "node04 boots again to running" test "$(tb ssh node04 systemctl is-system-running)" = running
start=$(date +%s)
kill -TERM "$(cut -d' ' -f1 "$TESTBED_STATE/nodes/node04/nspawn.pid")"
for _ in $(seq 120); do [ "$(nspawn_exits node04 0)" -ge 2 ] && break; sleep 1; done
check "nspawn's halt (SIGTERM) stops node04 with status 0 ($(seconds_since "$start") s)" test "$(nspawn_exits node04 0)" -eq 2
check "node04 never fell into rescue mode" sh -c "! grep -q 'rescue mode' '$TESTBED_STATE/nodes/node04/console.log'"

finish
