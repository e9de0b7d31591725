#!/usr/bin/env bash
# End-to-end test of the testbed itself (issue: "Testbed"): boots real
# Debian nodes and checks what the reliability and Slurm tests rely on.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
trap 'tb down >/dev/null 2>&1' EXIT

tb down >/dev/null 2>&1
start=$(date +%s)
inventory=$(tb up 3 --gpus 4 --hcas 2) || { echo "testbed up failed"; exit 1; }
echo "# testbed up 3 took $(seconds_since "$start")s (base image cached: $(ls "${TESTBED_CACHE:-/var/cache/clusterctl-testbed}"/base/*/complete >/dev/null 2>&1 && echo yes))"
check "up prints the inventory path" test -f "$inventory"
check "the inventory is valid clusterctl input" "$E2E_ROOT/build/clusterctl" inventory check "$inventory"

for node in node01 node02 node03; do
  state=$(tb ssh "$node" systemctl is-system-running 2>&1)
  check "$node answers SSH and is running (got '$state')" test "$state" = running
done
check "the non-root admin user has passwordless sudo" \
  test "$(ssh $(
    source "$E2E_ROOT/tests/testbed/lib/common.sh"
    ssh_options
  ) admin@"$TESTBED_SUBNET".12 sudo -n id -u)" = 0

gpus=$(tb ssh node02 'grep -l 0x10de /sys/bus/pci/devices/*/vendor | wc -l')
check "--gpus 4 gives node02 four NVIDIA PCI functions (got $gpus)" test "$gpus" = 4
devices=$(tb ssh node02 'stat -c "%n %t" /dev/nvidia0 /dev/nvidia1 /dev/nvidia2 /dev/nvidia3' | awk '$2 == "c3" {n++} END {print n+0}')
check "node02 has /dev/nvidia0..3 with major 195 (got $devices)" test "$devices" = 4
ports=$(tb ssh node03 'cat /sys/bus/pci/devices/*/infiniband/*/ports/1/state' | grep -c ACTIVE)
check "--hcas 2 gives node03 two active IB ports (got $ports)" test "$ports" = 2
head_gpus=$(tb ssh node01 'grep -l 0x10de /sys/bus/pci/devices/*/vendor | wc -l')
check "the head node has no GPUs (got $head_gpus)" test "$head_gpus" = 0

check "a node installs a Debian package through the proxy" \
  tb ssh node03 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hello >/dev/null 2>&1 && hello | grep -q "Hello, world"'

# Each node's systemd manages a cgroup tree of its own. Sharing one, two
# nodes restarting a unit of the same name race on its cgroup and starts
# fail with 219/CGROUP.
unit='[Unit]\nStartLimitIntervalSec=0\n[Service]\nExecStartPre=/bin/true\nExecStart=/bin/sleep 300\n'
for node in node01 node02; do
  tb ssh "$node" "printf '$unit' >/etc/systemd/system/testbed-same-name.service && systemctl daemon-reload"
done
for node in node01 node02; do
  tb ssh "$node" 'f=0; for i in $(seq 40); do systemctl restart testbed-same-name 2>/dev/null || f=$((f+1)); done; echo $f' \
    >"$TESTBED_STATE/restart-failures.$node" &
done
wait
restart_failures=$(( $(cat "$TESTBED_STATE/restart-failures.node01") + $(cat "$TESTBED_STATE/restart-failures.node02") ))
check "40 concurrent restarts of a same-named unit on two nodes all succeed ($restart_failures failed)" test "$restart_failures" = 0
for node in node01 node02; do tb ssh "$node" systemctl stop testbed-same-name; done

before=$(tb ssh node02 cat /proc/sys/kernel/random/boot_id)
tb ssh node02 systemctl reboot >/dev/null 2>&1
after=$before
for _ in $(seq 120); do
  after=$(tb ssh node02 cat /proc/sys/kernel/random/boot_id 2>/dev/null) && [ "$after" != "$before" ] && break
  sleep 0.5
done
check "a reboot inside a node brings it back with a new boot id" test -n "$after" -a "$after" != "$before"
check "the rebooted node is running again" test "$(tb ssh node02 systemctl is-system-running --wait 2>&1)" = running

tb partition node03 >/dev/null 2>&1
check "a partitioned node does not answer" bash -c "! $TESTBED ssh node03 true 2>/dev/null"
tb heal node03 >/dev/null 2>&1
check "a healed node answers again" tb ssh node03 true

old_key=$(tb exec node01 cat /etc/ssh/ssh_host_ed25519_key.pub)
tb rekey node01 >/dev/null 2>&1
new_key=$(tb exec node01 cat /etc/ssh/ssh_host_ed25519_key.pub)
check "rekey gives the node a new host key" test "$old_key" != "$new_key"
check "the rekeyed node still serves SSH" tb ssh node01 true

tb kill node03 >/dev/null 2>&1
check "kill powers the node off at once" bash -c "$TESTBED status | grep -q '^node03 .* off '"
tb start node03 >/dev/null 2>&1
check "start powers it on again" test "$(tb ssh node03 systemctl is-system-running 2>&1)" = running

start=$(date +%s)
tb up 3 >/dev/null 2>&1
check "up twice in a row is harmless and quick ($(seconds_since "$start")s)" test "$(tb ssh node01 systemctl is-system-running)" = running
tb up 4 --gpus 2 >/dev/null 2>&1
check "up grows an existing testbed" test "$(tb ssh node04 'grep -l 0x10de /sys/bus/pci/devices/*/vendor | wc -l')" = 2
check "the grown inventory lists node[01-04]" grep -q 'node\[01-04\]' "$inventory"

# A crash: the supervisors and nspawns die without cleanup.
for node in node01 node02 node03 node04; do
  for f in supervisor nspawn; do
    read -r pid _ <"$TESTBED_STATE/nodes/$node/$f.pid" && kill -9 "$pid" 2>/dev/null
  done
done
sleep 1
up_output=$(tb up 2 2>&1)
check "up after a crash clears what it left and boots fresh nodes" test "$(tb ssh node02 systemctl is-system-running)" = running ||
  echo "$up_output"  # one CI run failed here, with up's output hidden
check "the crashed run's extra nodes are gone" test ! -d "$TESTBED_STATE/nodes/node04"

tb down >/dev/null 2>&1
check "down leaves no namespace" bash -c "! ip netns list | grep -q '^$TESTBED_PREFIX-'"
check "down leaves no link" bash -c "! ip -o link show | grep -q ': $TESTBED_PREFIX'"
check "down leaves no mount" bash -c "! grep -q ' $TESTBED_STATE/' /proc/self/mounts"
check "down leaves no process in the testbed's records" test ! -d "$TESTBED_STATE/nodes"
leftover=$(ps -eo args | grep -c "^systemd-nspawn -D $TESTBED_STATE/" || true)
check "down leaves no nspawn running (found $leftover)" test "$leftover" = 0
check "down twice is harmless" tb down
finish
