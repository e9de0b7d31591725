#!/usr/bin/env bash
# End-to-end test of the convergence engine (issue: "Convergence engine"):
# deploy of hosts+chrony+users on a 3-node testbed, the no-op re-run, plan
# accuracy, kill -9 at random moments with exactly-once restarts, and a role
# failing on one node.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-deploy-XXXXXX)
trap 'tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
TRIALS=${E2E_KILL_TRIALS:-10}
# The engine's behaviour on the base roles; the Slurm stack has its own test.
ROLES=hosts,chrony,users,restart-probe,always-fails

mkdir -p "$WORK/roles"
cp "$(dirname "$0")"/deploy/*.yaml "$WORK/roles/"
write_inventory() {  # write_inventory [extra group yaml]
  cat >"$WORK/inventory.yaml" <<YAML
cluster: e2e
connection: {key_file: $TESTBED_STATE/ssh/id_ed25519, connect_timeout: 5}
vars:
  chrony_no_clock_control: true
  probe_generation: ${PROBE_GENERATION:-1}
  admin_groups: [{name: hpcadmin, gid: 5000}]
  admin_users:
    - {name: alice, uid: 5001, groups: [hpcadmin], sudo: true, authorized_keys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2e2ekeyforalice alice@example"]}
hosts:
  node[01-03]:
    address: $TESTBED_SUBNET.[11-13]
groups:
  controller: {hosts: node01}
  compute:
    hosts: node[02-03]
    roles: [restart-probe]
${1:-}
YAML
}
fresh_testbed() {
  tb down >/dev/null 2>&1
  tb up 3 >/dev/null 2>&1 || { echo "testbed up failed"; exit 1; }
  rm -rf "$WORK/.clusterctl"
}
recap() { grep '"event":"recap"' "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$2"; }
starts() { tb ssh "$1" 'cat /var/lib/clusterctl-probe.starts 2>/dev/null | wc -l'; }

write_inventory
fresh_testbed
start=$(date +%s%N)
"$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" >"$WORK/first.json" 2>"$WORK/first.err"
rc=$?
first_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "# first deploy: ${first_ms} ms"
check "first deploy converges (exit 0)" test $rc -eq 0
check "first deploy changed things" test "$(recap "$WORK/first.json" changed)" -gt 10
check "chrony runs on every node" test "$("$CLUSTERCTL" run "$WORK/inventory.yaml" -- systemctl is-active chrony 2>/dev/null | grep -c '^active')" = 1
check "node02 syncs time from node01" bash -c "$TESTBED ssh node02 chronyc -n sources | grep -q '$TESTBED_SUBNET.11'"
hosts_lines=$(tb ssh node03 "grep -cE '^$TESTBED_SUBNET\.1[1-3] node0[1-3]\$' /etc/hosts")
check "/etc/hosts lists every node (found $hosts_lines)" test "$hosts_lines" = 3
check "alice exists with her key and sudo" bash -c "$TESTBED ssh node02 'id alice && test -s /home/alice/.ssh/authorized_keys && sudo -l -U alice | grep -q NOPASSWD'"
check "the probe started then restarted once (2 starts) on node02" test "$(starts node02)" = 2
check "each compute node installed chrony and the probe's hello up front in one transaction" \
  test "$(grep '"event":"note"' "$WORK/first.json" | grep -c 'installed up front in one transaction ([0-9]* ms): chrony hello"')" = 2
check "the probe's package step is credited with hello (changed, as one transaction per step would have it)" \
  bash -c "grep '\"event\":\"step\"' '$WORK/first.json' | grep '\"step\":\"restart-probe/package\"' | grep -c '\"status\":\"changed\"' | grep -qx 2"

start=$(date +%s%N)
"$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" >"$WORK/second.json" 2>&1
rc=$?
second_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "# second deploy: ${second_ms} ms"
check "second deploy exits 0" test $rc -eq 0
check "second deploy changed=0" test "$(recap "$WORK/second.json" changed)" = 0
check "second deploy contacted no node" bash -c "! grep '\"event\":\"host_finished\"' '$WORK/second.json' | grep -q '\"contacted\":true'"
check "second deploy took under 1 s (${second_ms} ms)" test "$second_ms" -lt 1000
"$CLUSTERCTL" deploy --roles "$ROLES" --verify --json "$WORK/inventory.yaml" >"$WORK/verify.json" 2>&1
mutating=$(grep '"event":"step"' "$WORK/verify.json" | python3 -c 'import json,sys; print(sum(json.loads(l)["mutating_commands"] for l in sys.stdin))')
check "--verify checks every step on the nodes and changes nothing" test "$(recap "$WORK/verify.json" changed)" = 0
check "--verify ran no mutating command (ran $mutating)" test "$mutating" = 0
check "the restart count did not move" test "$(starts node02)" = 2

# plan predicts exactly what deploy then changes
PROBE_GENERATION=2 write_inventory
"$CLUSTERCTL" plan --roles "$ROLES" --json "$WORK/inventory.yaml" >"$WORK/plan.json" 2>&1
"$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" >"$WORK/apply.json" 2>&1
rc=$?
check "the deploy after the plan exits 0" test $rc -eq 0
steps_with() {  # steps_with FILE STATUS -> sorted "host step" lines
  grep '"event":"step"' "$1" | python3 -c 'import json,sys
for l in sys.stdin:
    e = json.loads(l)
    if e["status"] == sys.argv[1]: print(e["host"], e["step"])' "$2" | sort
}
steps_with "$WORK/plan.json" would-change >"$WORK/predicted"
steps_with "$WORK/apply.json" changed >"$WORK/changed"
cat "$WORK/predicted"
check "plan predicted some change" test -s "$WORK/predicted"
check "plan predicted exactly the steps deploy changed" diff "$WORK/predicted" "$WORK/changed"
check "the plan changed nothing by itself" test "$(starts node03)" = 3
check "the changed config restarted the probe exactly once more" test "$(starts node02)" = 3
if [ $rc -ne 0 ] || ! diff -q "$WORK/predicted" "$WORK/changed" >/dev/null; then
  echo "# the deploy after the plan printed:"
  grep -v '"event":"step_started"' "$WORK/apply.json" | sed 's/^/#   /'
fi

# kill -9 at random moments of a first deploy, then resume
PROBE_GENERATION=1 write_inventory
kills_ok=0
for trial in $(seq "$TRIALS"); do
  fresh_testbed
  delay_ms=$(( 100 + RANDOM % (first_ms > 200 ? first_ms : 200) ))
  "$CLUSTERCTL" deploy --roles "$ROLES" "$WORK/inventory.yaml" >"$WORK/killed.out" 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  "$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" >"$WORK/resume.json" 2>&1
  rc=$?
  again=$("$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" 2>&1 | grep '"event":"recap"')
  s2=$(starts node02)
  s3=$(starts node03)
  if [ $rc -eq 0 ] && grep -q '"changed":0' <<<"$again" && [ "$s2" = 2 ] && [ "$s3" = 2 ]; then
    kills_ok=$((kills_ok + 1))
  else
    echo "trial $trial: killed after ${delay_ms} ms: resume exit $rc, probe starts node02=$s2 node03=$s3, next: $again"
    tail -5 "$WORK/resume.json"
  fi
done
check "kill -9 at $TRIALS random moments: every resume converged with each owed restart done exactly once ($kills_ok/$TRIALS)" test "$kills_ok" = "$TRIALS"

# kill -9 in the middle of the packages installed up front (chrony's and the
# probe's hello, one apt transaction per node), then resume
fresh_testbed
"$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" >"$WORK/killed.json" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q '"step":"packages up front' "$WORK/killed.json" && break; sleep 0.1; done
sleep 0.5
in_batch=$(grep -c '"step":"packages up front' "$WORK/killed.json")
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
"$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" >"$WORK/resume.json" 2>&1
rc=$?
again=$("$CLUSTERCTL" deploy --roles "$ROLES" --json "$WORK/inventory.yaml" 2>&1 | grep '"event":"recap"')
check "killed while installing packages up front on $in_batch nodes" test "$in_batch" -ge 1
check "the resume after it converged (exit $rc), a deploy after changed nothing" \
  bash -c "[ $rc -eq 0 ] && grep -q '\"changed\":0' <<<'$again'"
check "hello and chrony are installed, and the probe restart owed by hello was done exactly once (starts $(starts node02) $(starts node03))" \
  bash -c "[ '$(starts node02)' = 2 ] && [ '$(starts node03)' = 2 ] && $TESTBED ssh node02 'dpkg -s hello chrony' >/dev/null"
[ $rc -eq 0 ] || grep -E '"status":"failed"|"event":"recap"' "$WORK/resume.json" | tail -5

# a role failing on one node
write_inventory "  flaky: {hosts: node03, roles: [always-fails]}"
"$CLUSTERCTL" deploy --roles "$ROLES" "$WORK/inventory.yaml" >"$WORK/fail.out" 2>&1
rc=$?
cat "$WORK/fail.out" | tail -8
check "a failing role exits 1" test $rc -eq 1
check "the recap names node03, the role, the step and the error" grep -q "node03 FAILED always-fails/broken step: sh exited with status 3" "$WORK/fail.out"
check "the recap shows the command and its output" bash -c "grep -q 'command: sh -c' '$WORK/fail.out' && grep -q 'disk quota exceeded on /scratch' '$WORK/fail.out'"
check "the other nodes are converged" grep -q "ok: node\[01-02\]" "$WORK/fail.out"
check "status shows node03 failed" bash -c "'$CLUSTERCTL' status '$WORK/inventory.yaml' | grep -q '^node03 .* failed'"

# a failure budget with batches: node01 fails first, the rest are not started
write_inventory "  flaky: {hosts: node01, roles: [always-fails]}"
"$CLUSTERCTL" deploy --roles "$ROLES" --batch 1 --max-fail 0 "$WORK/inventory.yaml" >"$WORK/budget.out" 2>&1
check "--max-fail 0 with --batch 1 stops after the first failed host" grep -q "skipped: node\[02-03\]" "$WORK/budget.out"
finish
