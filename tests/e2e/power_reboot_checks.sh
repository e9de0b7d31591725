# e2e_power's reboot checks (issue 54, "the engine uses it"), sourced by
# power_test.sh on its testbed (3 nodes with BMCs, the Slurm stack
# deployed; its inventory, expected (the BMC addresses), WORK, CLUSTERCTL,
# POST_SECONDS, tb and check): a deploy whose reboot step's node never
# comes back power-cycles the node through its BMC once, and completes.
#
# node03's next reboot is made to hang (`testbed hang-reboot`: its
# container really stays down and its BMC reads on, as a server hung in
# its firmware; the hang itself is SIMULATED, tests/testbed/README.md). A
# one-step role beside the inventory (in a copy of it that gives node03
# the role) changes a file and owes a reboot with a short timeout
# (HANG_TIMEOUT); the deploy waits that long, power-cycles node03 through
# its BMC (the same ipmitool path as `clusterctl power`), waits again and
# sees a new boot id. Checked: the deploy's exit and lines, the BMC's own
# record of the power off and on, the new boot, and history --run N (the
# power cycle with its time, why and what the BMC said; the step's record).
#
# Cost: HANG_TIMEOUT (the hang, waited out once) + the cycle, HANG_POST
# and node03's boot + the deploy's own work (facts are stored: no gather).
# Measured (2026-11-30, 2 cores shared with other sessions' builds) with
# HANG_TIMEOUT=30: 42-43 s for this part (e2e_power 180-222 s), of which
# the deploy 41-42 s (30 s of timeout, the cycle, 5 s of SIMULATED
# firmware, the boot); with 60 s (not run yet) about 30 s more.
# The reboot step's timeout: longer than node03's own shutdown (from the
# reboot's request to nspawn's exit: about 29 s in one run, over 31 s in
# the other, where with 30 s the cycle came before the reboot hung),
# and the boot after the cycle must fit in it. The hang is waited out once.
HANG_TIMEOUT=60
HANG_POST=5      # node03's SIMULATED firmware time for this part (POST_SECONDS is for Slurm to see it go)
hang_start=$(date +%s)
hang_inventory="$TESTBED_STATE/inventory-hang.yaml"  # beside the inventory: its BMC password files, its state
mkdir -p "$TESTBED_STATE/roles"
cat >"$TESTBED_STATE/roles/reboot-hang.yaml" <<YAML
version: 3
description: e2e_power - a change that owes a reboot, with a short timeout
vars:
  reboot_hang_timeout: {default: $HANG_TIMEOUT, minimum: 1, description: the reboot's timeout in seconds}
steps:
  - name: marker
    file: {path: /etc/clusterctl-reboot-hang, content: "owes a reboot\n"}
  - name: reboot
    reboot: {reason: e2e_power's hanging reboot, timeout: "{{reboot_hang_timeout}}"}
YAML
{ cat "$inventory"; echo "  hanging: {hosts: node03, roles: [reboot-hang]}"; } >"$hang_inventory"
bmc03=$(echo "$expected" | cut -d' ' -f3)
power_log="$TESTBED_STATE/nodes/node03/bmc/power.log"
offs_before=$(grep -c 'power off requested' "$power_log")
tb bmc-post node03 "$HANG_POST"
tb hang-reboot node03 >/dev/null
boot_before=$(tb ssh node03 cat /proc/sys/kernel/random/boot_id)
"$CLUSTERCTL" deploy "$hang_inventory" --roles reboot-hang --limit node03 >"$WORK/hang.out" 2>&1
rc=$?
echo "# the hanging reboot's deploy took $(seconds_since "$hang_start")s"
check "a deploy whose reboot hangs completes after a power cycle (exit $rc)" test "$rc" -eq 0 || tail -30 "$WORK/hang.out"
check "node03's container stayed down: its reboot hung (exits.log)" \
  grep -q 'the reboot hangs (SIMULATED firmware hang)' "$TESTBED_STATE/nodes/node03/exits.log"
# The wait's seconds: its timeout, and the last probe's connection attempt to a silent node.
gave_up=$(grep -E "^node03: warning: gave up waiting for the node to come back from reboot-hang/reboot \(a new boot id\) after [0-9]+\.[0-9] s: power cycle through its BMC $bmc03\$" "$WORK/hang.out")
check "the deploy gave up waiting after the ${HANG_TIMEOUT} s timeout, naming node03's BMC (${gave_up:-no such line})" \
  test -n "$gave_up"
[ -n "$gave_up" ] || grep -E 'node03: (warning|note)' "$WORK/hang.out"
check "and said what the BMC did" grep -q \
  "power cycle through its BMC $bmc03 (node03 did not come back from the reboot within $HANG_TIMEOUT s): power was on: power cycle requested" \
  "$WORK/hang.out"
offs=$(( $(grep -c 'power off requested' "$power_log") - offs_before ))
check "node03's BMC powered it off once and on again (its power.log: $offs off)" test "$offs" = 1
boot_after=$(tb ssh node03 cat /proc/sys/kernel/random/boot_id 2>/dev/null)
check "node03 booted anew (new boot id)" test -n "$boot_after" -a "$boot_after" != "$boot_before"
run=$("$CLUSTERCTL" history "$hang_inventory" --json 2>/dev/null | python3 -c '
import json, sys
print(max(r["id"] for r in json.load(sys.stdin)["runs"]))' 2>/dev/null)
"$CLUSTERCTL" history "$hang_inventory" --run "${run:-0}" >"$WORK/hang-history.out" 2>&1
check "history --run $run: the power cycle, when and why, with what the BMC said" grep -Eq \
  "^  [0-9-]+ [0-9:]+ UTC warning node03 power: power cycle through its BMC $bmc03 \(node03 did not come back from the reboot within $HANG_TIMEOUT s\): power was on: power cycle requested\$" \
  "$WORK/hang-history.out" || cat "$WORK/hang-history.out"
check "history --run $run: the reboot step's record names the power cycle" \
  grep -Eq "node03 +reboot-hang/reboot +changed .*after a power cycle through its BMC $bmc03" "$WORK/hang-history.out"
check "once: one power cycle in the run" test "$(grep -c 'node03 power:' "$WORK/hang-history.out")" = 1
tb bmc-post node03 "$POST_SECONDS"
rm -f "$TESTBED_STATE/nodes/node03/hang-reboot"  # a hang the reboot did not reach (a failed run) is not left for later
rm -rf "$TESTBED_STATE/roles" "$hang_inventory"
echo "# power_reboot_checks took $(seconds_since "$hang_start")s"
