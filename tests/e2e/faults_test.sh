#!/usr/bin/env bash
# End-to-end faults on the full stack (issue: reliability campaign):
# SIGINT and SIGTERM mid-run (a clean stop that says what is left and leaves
# no process on the nodes), a node partitioned during a slurm.conf rollout,
# a node powered off and one rebooted in the middle of a step, a node's
# disk filling during a file write, and nodes whose agent replies garbage,
# endless output or one byte a second. Each ends with the project's own
# checks: deploy converges, --verify finds nothing, every owed restart
# happened exactly once.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-faults-XXXXXX)
trap 'tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
now_ms() { echo $(($(date +%s%N) / 1000000)); }
invocation() { tb ssh "$1" systemctl show -p InvocationID --value "$2"; }
agents_left() {  # agents_left: clusterctl-agent processes on the nodes, one line each
  local n
  for n in node01 node02 node03; do
    tb exec "$n" ps -eo pid,args 2>/dev/null | grep -E ' /var/lib/clusterctl/agent/[0-9a-f]+/clusterctl-agent$' | sed "s/^/$n /"
  done
}
wait_until_no_agent_left() {  # wait_until_no_agent_left SECONDS: 0 once none is left
  local i
  for i in $(seq $(( $1 * 2 ))); do [ -z "$(agents_left)" ] && return 0; sleep 0.5; done
  return 1
}
wait_for_line() {  # wait_for_line FILE REGEX SECONDS
  local i
  for i in $(seq $(( $3 * 10 ))); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
recap_changed() { grep '"event":"recap"' "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["changed"])'; }

tb down >/dev/null 2>&1
inventory=$(tb up 3 --gpus 2 2>/dev/null) || { echo "testbed up failed"; exit 1; }
site=$(dirname "$inventory")
mkdir -p "$site/roles" && cp "$(dirname "$0")"/faults/*.yaml "$site/roles/"
cp "$inventory" "$WORK/inventory.orig"
set_vars() {  # set_vars 'YAML lines under vars:' (on top of the testbed's own)
  python3 - "$WORK/inventory.orig" "$inventory" "$1" <<'PY'
import sys
orig, out, extra = sys.argv[1:]
text = open(orig).read()
text = text.replace("\nvars:\n", "\nvars:\n" + extra + "\n", 1) if "\nvars:\n" in text else text + "vars:\n" + extra + "\n"
open(out, "w").write(text)
PY
}
set_vars "  slow_generation: 1"

# --- SIGINT in the middle of the first full-stack deploy ----------------------
"$CLUSTERCTL" deploy "$inventory" >"$WORK/sigint.out" 2>&1 &
pid=$!
wait_for_line "$WORK/sigint.out" 'changed slurm-common' 180 || echo "# (no slurm-common change seen before the signal)"
kill -INT "$pid"
stop_start=$(now_ms)
wait "$pid"; rc=$?
stopped_in=$(( $(now_ms) - stop_start ))
echo "# stopped ${stopped_in} ms after SIGINT (exit $rc)"
check "SIGINT: exit 1 within the 30 s grace" bash -c "[ $rc -eq 1 ] && [ $stopped_in -lt 40000 ]"
check "SIGINT: it says it is stopping and what did not finish" \
  bash -c "grep -q 'SIGINT: stopping' '$WORK/sigint.out' && grep -q 'Stopped before the end' '$WORK/sigint.out'"
check "SIGINT: the run is recorded as interrupted" bash -c "'$CLUSTERCTL' history '$inventory' | grep -q interrupted"
# A step still running after the 30 s grace was abandoned (an apt install on
# a stalled mirror, in CI): its agent saw the session close and stopped it
# (SIGTERM, 5 s, SIGKILL).
wait_until_no_agent_left 10
left=$(agents_left)
check "SIGINT: no agent left running on any node ($(echo "$left" | grep -c . ) left)" test -z "$left"
"$CLUSTERCTL" deploy "$inventory" >"$WORK/after-sigint.out" 2>&1
check "after SIGINT the next deploy converges" test $? -eq 0 || tail -20 "$WORK/after-sigint.out"
"$CLUSTERCTL" deploy --verify --json "$inventory" >"$WORK/verify1.json" 2>&1
check "after SIGINT --verify finds nothing to change" test "$(recap_changed "$WORK/verify1.json")" = 0

# --- SIGTERM during a change on the compute nodes ------------------------------
set_vars "  slow_generation: 2"
"$CLUSTERCTL" deploy "$inventory" >"$WORK/sigterm.out" 2>&1 &
pid=$!
sleep 2
kill -TERM "$pid"
wait "$pid"; rc=$?
check "SIGTERM: a clean stop (exit 1, stopped hosts listed)" bash -c "[ $rc -eq 1 ] && grep -q 'SIGTERM: stopping' '$WORK/sigterm.out'"
wait_until_no_agent_left 10
check "SIGTERM: no agent left running on any node" test -z "$(agents_left)"
"$CLUSTERCTL" deploy "$inventory" >"$WORK/after-sigterm.out" 2>&1
check "after SIGTERM the next deploy converges" test $? -eq 0
check "the slow step finished on node02 and node03" test "$(tb exec node02 cat /var/lib/clusterctl-slow.marker) $(tb exec node03 cat /var/lib/clusterctl-slow.marker)" = "2 2"

# --- a second SIGINT abandons a step: the node's command stops with its agent ---
slow_running() { tb exec node02 ps -eo args 2>/dev/null | grep -qx 'sleep 600'; }
set_vars "  slow_generation: 9
  slow_seconds: 600"
"$CLUSTERCTL" deploy "$inventory" >"$WORK/abandon.out" 2>&1 &
pid=$!
for i in $(seq 200); do slow_running && break; sleep 0.1; done
slow_running || echo "# (the slow step was not seen running on node02 before the signals)"
kill -INT "$pid"; sleep 0.5; kill -INT "$pid"
stop_start=$(now_ms)
wait "$pid"; rc=$?
stopped_in=$(( $(now_ms) - stop_start ))
echo "# the second SIGINT ended the deploy in ${stopped_in} ms (exit $rc)"
check "abandoned: the deploy ends within 10 s, saying the running step was abandoned" \
  bash -c "[ $rc -eq 1 ] && [ $stopped_in -lt 10000 ] && grep -q 'steps still running are abandoned' '$WORK/abandon.out'"
wait_until_no_agent_left 10
check "abandoned: no agent left running on any node" test -z "$(agents_left)"
check "abandoned: the step's command was stopped on the node (no sleep 600 left)" test "$(tb exec node02 ps -eo args | grep -cx 'sleep 600')" = 0
check "abandoned: the step did not finish (node02's marker is still 2)" test "$(tb exec node02 cat /var/lib/clusterctl-slow.marker)" = 2

# --- the Slurm health check drains a failing node and resumes it --------------
# (docs/health.md) chrony stopped, then a filled scratch file system, on
# node02; node03, drained by hand, stays drained through all of it.
health_interval=10
slurm_state() { tb ssh node01 "sinfo -h -n $1 -o '%T|%E'"; }  # state|reason
wait_state() {  # wait_state NODE REGEX SECONDS
  local i
  for i in $(seq $(( $3 * 2 ))); do slurm_state "$1" | grep -qE "$2" && return 0; sleep 0.5; done
  echo "# $1: $(slurm_state "$1")"
  return 1
}
for n in node02 node03; do tb exec "$n" sh -c 'mkdir -p /srv/scratch && mount -t tmpfs -o size=8m tmpfs /srv/scratch'; done
set_vars "  slow_generation: 2
  slurm_health_interval: $health_interval
  validate_disk_paths: [/, /srv/scratch]
  validate_disk_free_min_gib: 0"
"$CLUSTERCTL" deploy "$inventory" >"$WORK/health.out" 2>&1
check "health: the deploy installs clusterctl-health and slurm.conf runs it" \
  bash -c "[ $? -eq 0 ] && '$TESTBED' ssh node02 grep -qx HealthCheckProgram=/usr/local/sbin/clusterctl-health /etc/slurm/slurm.conf"
check "health: node02 is idle after the deploy (every check passes)" wait_state node02 '^idle' 60
check "health: clusterctl-health --dry-run on node02 prints each check's result" \
  bash -c "'$TESTBED' ssh node02 clusterctl-health --dry-run | grep -q '^pass clock.offset'"
tb ssh node01 scontrol update nodename=node03 state=drain reason=ticket-4711
for n in node02 node03; do tb ssh "$n" systemctl stop chrony; done
start=$(now_ms)
wait_state node02 '^drain.*\|clusterctl: clock\.offset' $(( health_interval * 2 + 15 ))
drained=$?
echo "# chrony stopped: node02 drained after $(( $(now_ms) - start )) ms (HealthCheckInterval=${health_interval}): $(slurm_state node02)"
check "health: chrony stopped drains node02 with a reason naming clock.offset" test $drained -eq 0
check "health: node03, drained by hand, keeps its reason" bash -c "[ \"\$('$TESTBED' ssh node01 \"sinfo -h -n node03 -o %E\")\" = ticket-4711 ]"
for n in node02 node03; do tb ssh "$n" systemctl start chrony; done
start=$(now_ms)
check "health: chrony started again, node02 returns to idle by itself" wait_state node02 '^idle\|' $(( health_interval * 3 + 20 ))
echo "# chrony started: node02 idle after $(( $(now_ms) - start )) ms"
check "health: node03 is still drained for ticket-4711" bash -c "'$TESTBED' ssh node01 \"sinfo -h -n node03 -o '%T %E'\" | grep -qE '^drain.* ticket-4711$'"
tb exec node02 sh -c 'head -c 9000000 /dev/zero >/srv/scratch/fill 2>/dev/null; true'  # the 8 MiB tmpfs full
check "health: a full scratch file system drains node02, naming node.disk" \
  wait_state node02 '^drain.*\|clusterctl: node\.disk .*/srv/scratch' $(( health_interval * 2 + 15 ))
tb exec node02 rm -f /srv/scratch/fill
check "health: space freed, node02 returns to idle" wait_state node02 '^idle\|' $(( health_interval * 3 + 20 ))
tb ssh node01 scontrol update nodename=node03 state=resume

# --- a node partitioned during a slurm.conf rollout ----------------------------
slurmd2=$(invocation node02 slurmd)
slurmd3=$(invocation node03 slurmd)
set_vars "  slow_generation: 2
  slurm_def_mem_per_cpu: 2048"
tb partition node03
start=$(now_ms)
"$CLUSTERCTL" deploy "$inventory" >"$WORK/partition.out" 2>&1
rc=$?
echo "# deploy with node03 partitioned: $(( $(now_ms) - start )) ms"
check "partition: the deploy fails (exit 1) naming node03 unreachable" \
  bash -c "[ $rc -eq 1 ] && grep -q 'node03 UNREACHABLE' '$WORK/partition.out'"
check "partition: node01 and node02 converged (slurm.conf has DefMemPerCPU=2048)" \
  test "$(tb ssh node01 grep -c DefMemPerCPU=2048 /etc/slurm/slurm.conf) $(tb ssh node02 grep -c DefMemPerCPU=2048 /etc/slurm/slurm.conf)" = "1 1"
slurmd2_after=$(invocation node02 slurmd)
check "partition: node02's slurmd restarted for the new slurm.conf" test "$slurmd2_after" != "$slurmd2"
tb heal node03
"$CLUSTERCTL" deploy "$inventory" >"$WORK/healed.out" 2>&1
check "healed: the next deploy converges node03" test $? -eq 0
check "healed: node03 has the new slurm.conf" tb ssh node03 grep -q DefMemPerCPU=2048 /etc/slurm/slurm.conf
slurmd3_after=$(invocation node03 slurmd)
check "healed: node03's slurmd restarted" test "$slurmd3_after" != "$slurmd3"
check "healed: node02's slurmd was not restarted again" test "$(invocation node02 slurmd)" = "$slurmd2_after"
"$CLUSTERCTL" deploy --json "$inventory" >"$WORK/again.json" 2>&1
check "healed: a further deploy changes nothing" test "$(recap_changed "$WORK/again.json")" = 0
check "healed: node03's slurmd restarted once, not again" test "$(invocation node03 slurmd)" = "$slurmd3_after"

# --- a node powered off, another rebooted, in the middle of a step -------------
set_vars "  slow_generation: 3
  slurm_def_mem_per_cpu: 2048"
"$CLUSTERCTL" deploy "$inventory" >"$WORK/poweroff.out" 2>&1 &
pid=$!
sleep 3
tb kill node02 >/dev/null 2>&1
tb exec node03 systemctl reboot >/dev/null 2>&1
start=$(now_ms)
wait "$pid"; rc=$?
echo "# deploy with node02 powered off and node03 rebooting mid-step: ended $(( $(now_ms) - start )) ms after"
check "power cut / reboot: the deploy ends (exit 1) naming both nodes" \
  bash -c "[ $rc -eq 1 ] && grep -q 'node02' '$WORK/poweroff.out' && grep -q 'node03' '$WORK/poweroff.out'"
check "power cut / reboot: node01 is unaffected" grep -qE 'ok: node01|ok: node\[01' "$WORK/poweroff.out"
tb start node02 >/dev/null 2>&1
for i in $(seq 60); do tb ssh node02 true 2>/dev/null && tb ssh node03 true 2>/dev/null && break; sleep 1; done
"$CLUSTERCTL" deploy "$inventory" >"$WORK/after-power.out" 2>&1
check "after power-on and reboot the next deploy converges" test $? -eq 0 || tail -20 "$WORK/after-power.out"
check "the interrupted step was done afterwards" test "$(tb exec node02 cat /var/lib/clusterctl-slow.marker) $(tb exec node03 cat /var/lib/clusterctl-slow.marker)" = "3 3"

# --- a node's disk fills during a file write -------------------------------------
tb exec node02 sh -c 'mkdir -p /srv/small && mount -t tmpfs -o size=64k tmpfs /srv/small && echo old >/srv/small/app.conf'
# node02 alone gets the role, through a group of the inventory's own.
python3 - "$inventory" "$site/disk.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
text = text.replace("\nvars:\n", "\nvars:\n  big_content: \"" + "x" * 200000 + "\"\n", 1)
text = text.replace("\ngroups:\n", "\ngroups:\n  smalldisk: {hosts: [node02], roles: [small-disk]}\n", 1)
open(sys.argv[2], "w").write(text)
PY
"$CLUSTERCTL" deploy --roles small-disk --limit node02 "$site/disk.yaml" >"$WORK/disk.out" 2>&1
rc=$?
check "disk full: the write fails with a clear error" bash -c "[ $rc -eq 1 ] && grep -q 'No space left on device' '$WORK/disk.out'"
check "disk full: the old file is intact" test "$(tb exec node02 cat /srv/small/app.conf)" = old
check "disk full: no temporary file is left" test -z "$(tb exec node02 sh -c 'ls -A /srv/small | grep -v ^app.conf$')"
tb exec node02 umount /srv/small

# --- apt stalls on a proxy that never answers ------------------------------------
# node02's apt goes through a listener that accepts and never answers (the
# proxy connection seen hanging for 20 minutes in CLOSE-WAIT). The agent
# stops an apt that makes no progress for 30 s and tries again; once the
# first try hangs, the node's apt is pointed back at the real proxy, so the
# retry finishes. Without the stall watch the first try would run to its
# 5-minute limit. The listener is bounded (timeout) and ended by its pid.
stall_port=3199
timeout 300 python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(16); held = []
while True:
    c, _ = s.accept(); held.append(c); print("accepted", flush=True)
' "$TESTBED_SUBNET.1" "$stall_port" >"$WORK/silent-proxy.log" 2>&1 &
silent_proxy=$!
python3 - "$inventory" "$site/stall.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
text = text.replace("\ngroups:\n", "\ngroups:\n  aptstall: {hosts: [node02], roles: [apt-stall]}\n", 1)
open(sys.argv[2], "w").write(text)
PY
tb exec node02 sh -c "printf 'Acquire::http::Proxy \"http://$TESTBED_SUBNET.1:$stall_port\";\n' >/etc/apt/apt.conf.d/99silent-proxy; rm -f /var/lib/clusterctl/apt-updated; apt-get remove -y -q hello >/dev/null 2>&1 || true"
start=$(now_ms)
"$CLUSTERCTL" deploy --roles apt-stall --limit node02 "$site/stall.yaml" >"$WORK/stall.out" 2>&1 &
stall_deploy=$!
wait_for_line "$WORK/silent-proxy.log" accepted 60 && tb exec node02 rm -f /etc/apt/apt.conf.d/99silent-proxy
wait "$stall_deploy"; rc=$?
took=$(( $(now_ms) - start ))
kill "$silent_proxy" 2>/dev/null; wait "$silent_proxy" 2>/dev/null
echo "# apt stall: the deploy took $took ms (exit $rc)"
check "apt stall: apt reached the silent proxy" grep -q accepted "$WORK/silent-proxy.log"
check "apt stall: the stalled apt was stopped and tried again well before its 5-minute limit ($took ms), hello installed" \
  bash -c "[ $rc -eq 0 ] && [ $took -lt 120000 ] && $TESTBED exec node02 dpkg -s hello >/dev/null"

# --- nodes whose agent replies garbage, endlessly, hugely, or a byte a second ----
agent_path=$(tb exec node01 sh -c 'ls /var/lib/clusterctl/agent/*/clusterctl-agent' | head -1)
# The same site (state beside it) with a 2 s connect timeout: a host's set-up,
# the agent's hello included, is capped at 10x that, so the trickling agent
# is given up after 20 s instead of the default inventory's 50.
hostile_inventory="$site/hostile.yaml"
sed 's/^  connect_timeout: 5$/  connect_timeout: 2/' "$inventory" >"$hostile_inventory"
check "the hostile runs' inventory has the 2 s connect timeout" grep -q '^  connect_timeout: 2$' "$hostile_inventory"
hostile() {  # hostile NAME SCRIPT: node03's agent replaced by SCRIPT; deploy --verify; checks
  local name=$1
  tb exec node03 sh -c "cp '$agent_path' /root/agent.real && printf '%s\n' '#!/bin/sh' '$2' >'$agent_path' && chmod 755 '$agent_path'"
  local start; start=$(now_ms)
  /usr/bin/time -f '%M' -o "$WORK/$name.rss" "$CLUSTERCTL" deploy --verify "$hostile_inventory" >"$WORK/$name.out" 2>&1
  local rc=$? took=$(( $(now_ms) - start )) rss_kb
  rss_kb=$(tail -1 "$WORK/$name.rss")
  tb exec node03 sh -c "cp /root/agent.real '$agent_path'"
  echo "# $name: exit $rc after $took ms, controller peak RSS $(( rss_kb / 1024 )) MiB"
  check "$name: node03 fails with a message, node01-02 are checked (exit 1)" \
    bash -c "[ $rc -eq 1 ] && grep -qE 'node03 (FAILED|UNREACHABLE)' '$WORK/$name.out' && grep -qE 'ok: node\[01-02\]' '$WORK/$name.out'"
  check "$name: the controller's memory stays bounded ($(( rss_kb / 1024 )) MiB)" test "$rss_kb" -lt 400000
  check "$name: the run ends within its deadlines ($took ms)" test "$took" -lt 120000
}
hostile garbage 'printf "\nCLUSTERCTL-AGENT/1\n"; head -c 1000000 /dev/urandom; sleep 60'
hostile endless 'printf "\nCLUSTERCTL-AGENT/1\n\000\000\000\002\003\377\377\377{}"; exec cat /dev/zero'
hostile no-preamble 'exec cat /dev/zero'
hostile trickle 'while :; do printf x; sleep 1; done'
"$CLUSTERCTL" deploy --verify --json "$inventory" >"$WORK/final.json" 2>&1
check "at the end: --verify on every node finds nothing to change" test "$(recap_changed "$WORK/final.json")" = 0
finish
