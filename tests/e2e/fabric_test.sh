#!/usr/bin/env bash
# End-to-end test of the fabric roles (issue: "InfiniBand fabric"), on a
# 3-node testbed with one simulated HCA each (--hcas 1: ib0 is a veth on a
# fabric bridge, so addresses, MTUs and reachability are real; the link
# type is Ethernet, and the IPoIB mode is not applied: simulated).
# One deploy installs the inbox RDMA stack for real and configures ib0 on
# every node from the inventory; validate's fabric.ipoib reaches every other
# node with DF set at the configured MTU; the second deploy changes and
# restarts nothing; one host's MTU change touches only that host's ib0 (and
# validate finds the mismatch it makes); a reboot keeps the configuration.
# Then the MLNX_OFED path, with a bundle the testbed builds in NVIDIA's
# layout (placeholder packages, marked SIMULATED): a bundle for another
# distribution is refused with both names and nothing changes; the right
# one, with the apt proxy stopped (the nodes reach only the controller), is
# copied once (a kill -9 of the controller halfway through the copy resumes
# where it stopped), installed from the node-local repository, and openibd
# starts exactly once; the deploy after changes nothing.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-fabric-XXXXXX)
trap 'tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
# The node's own view of ib0 (netlink; a container's sysfs shows another namespace's links).
ib_mtu() { tb exec "$1" ip -o link show dev ib0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }
# The link's ifindex and address lines stay the same when nothing touched it.
eth0_state() { tb exec "$1" ip -o -4 addr show dev eth0; }
changed_of() {  # changed_of FILE HOST: how many steps changed on the host
  changed_steps "$1" "$2" | tr , '\n' | grep -c . || true
}

tb down >/dev/null 2>&1
tb_inventory=$(tb up 3 --hcas 1 2>/dev/null) || { echo "testbed up failed"; exit 1; }
cp "$tb_inventory" "$WORK/inventory.yaml"
cp -r "$(dirname "$tb_inventory")/ssh" "$WORK/ssh"
inventory="$WORK/inventory.yaml"
# The fabric's MTU for every node (4K IB MTU subnet, datagram mode).
sed -i 's/^vars:$/vars:\n  ipoib_mtu: 4092/' "$inventory"
check "the testbed inventory gives every node an ib0 address" grep -q "ib0: 10.213.178.\[11-13\]/24" "$inventory"
eth0_before=$(eth0_state node02)

start=$(date +%s)
"$CLUSTERCTL" deploy "$inventory" --json >"$WORK/first.json" 2>"$WORK/first.err"
rc=$?
echo "# first deploy: $(seconds_since "$start")s"
check "first deploy exits 0" test $rc -eq 0 || tail -20 "$WORK/first.err"
for n in node01 node02 node03; do
  check "$n: the inbox stack is installed (ibstat from infiniband-diags, ibv_devinfo, ib_write_bw)" \
    tb exec "$n" sh -c 'test -x /usr/sbin/ibstat && test -x /usr/bin/ibv_devinfo && test -x /usr/bin/ib_write_bw'
  check "$n: ib0 MTU is 4092 (got $(ib_mtu "$n"))" test "$(ib_mtu "$n")" = 4092
  check "$n: ib0 has its inventory address" sh -c "$TESTBED exec $n ip -o -4 addr show dev ib0 | grep -q 'inet 10.213.178.1[123]/24'"
done
check "node02: networkd's wait-online is off (networkd manages only ib0 here: it would hold network-online.target for 2 minutes)" \
  sh -c "! $TESTBED exec node02 systemctl is-enabled -q systemd-networkd-wait-online"
check "node02's management interface was not touched" test "$(eth0_state node02)" = "$eth0_before"
"$CLUSTERCTL" facts "$inventory" --json >"$WORK/facts.json" 2>/dev/null
check "facts: node02's RDMA stack is inbox rdma-core, ib0 link type ether (the simulated fabric)" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))["hosts"]["node02"]["facts"]
assert d["rdma_stack"]["stack"]=="inbox", d["rdma_stack"]
ib0=[i for i in d["interfaces"] if i["name"]=="ib0"][0]
assert ib0["link_type"]=="ether", ib0
assert d["ib_devices"][0]["psid"]=="MT_0000000223", d["ib_devices"]
' "$WORK/facts.json"

"$CLUSTERCTL" validate "$inventory" --checks fabric --json >"$WORK/validate.json" 2>"$WORK/validate.err"
check "validate: fabric.ipoib passes on all three nodes at MTU 4092" python3 -c '
import json,sys
r=[c for c in json.load(open(sys.argv[1]))["results"] if c["check"]=="fabric.ipoib"]
assert len(r)==3 and all(c["result"]=="pass" for c in r), r
assert all(c["measured"]=="2/2 peers reached" for c in r), r
assert all("link type ether (not an InfiniBand link)" in c["detail"] for c in r), r
' "$WORK/validate.json" || head -40 "$WORK/validate.json"

# The second deploy changes nothing and restarts nothing.
networkd_before=$(tb exec node02 systemctl show -p InvocationID --value systemd-networkd)
"$CLUSTERCTL" deploy "$inventory" --json >"$WORK/second.json" 2>"$WORK/second.err"
check "second deploy exits 0" test $? -eq 0
check "second deploy changes nothing on any node" \
  test "$(changed_of "$WORK/second.json" node01)$(changed_of "$WORK/second.json" node02)$(changed_of "$WORK/second.json" node03)" = 000
check "systemd-networkd was not restarted" \
  test "$(tb exec node02 systemctl show -p InvocationID --value systemd-networkd)" = "$networkd_before"

# One host's MTU: only that host's ib0 changes.
# (node02 is inside the node[01-03] range, so its own value goes through a group of one.)
printf '  fabric_mtu_4000:\n    hosts: node02\n    vars: {ipoib_mtu: 4000}\n' >>"$inventory"
"$CLUSTERCTL" inventory check "$inventory" >/dev/null || { echo "the edited inventory is invalid"; tail -8 "$inventory"; }
node03_networkd=$(tb exec node03 systemctl show -p InvocationID --value systemd-networkd)
"$CLUSTERCTL" deploy "$inventory" --json >"$WORK/mtu.json" 2>"$WORK/mtu.err"
check "the MTU deploy exits 0" test $? -eq 0 || tail -20 "$WORK/mtu.err"
check "node02's ib0 MTU is now 4000 (got $(ib_mtu node02))" test "$(ib_mtu node02)" = 4000
check "node01 and node03 keep 4092" test "$(ib_mtu node01)$(ib_mtu node03)" = 40924092
check "only node02 changed (node01, node03: 0 steps)" \
  test "$(changed_of "$WORK/mtu.json" node01)$(changed_of "$WORK/mtu.json" node03)" = 00
check "node02 changed its ib0 .network file and reloaded networkd, nothing else (got $(changed_steps "$WORK/mtu.json" node02))" \
  test "$(changed_steps "$WORK/mtu.json" node02)" = "ipoib/networkd interface[0],ipoib/reload networkd"
check "node02's management interface was not touched" test "$(eth0_state node02)" = "$eth0_before"
check "node03's networkd was not touched" \
  test "$(tb exec node03 systemctl show -p InvocationID --value systemd-networkd)" = "$node03_networkd"
"$CLUSTERCTL" validate "$inventory" --checks fabric.ipoib --json >"$WORK/mismatch.json" 2>/dev/null
check "validate finds the mismatch: node03 cannot reach node02 at 4092 with DF set" python3 -c '
import json,sys
r={c["subject"]:c for c in json.load(open(sys.argv[1]))["results"] if c["check"]=="fabric.ipoib"}
assert r["node03"]["result"]=="fail" and "node02" in r["node03"]["detail"], r["node03"]
assert r["node02"]["result"]=="pass", r["node02"]
' "$WORK/mismatch.json"

# A reboot: the interface comes back configured (networkd reads the files at boot).
boot_before=$(tb exec node03 cat /proc/sys/kernel/random/boot_id)
tb exec node03 systemctl reboot >/dev/null 2>&1
for i in $(seq 60); do
  sleep 1
  b=$(tb ssh node03 cat /proc/sys/kernel/random/boot_id 2>/dev/null) && [ -n "$b" ] && [ "$b" != "$boot_before" ] && break
done
for i in $(seq 30); do
  tb exec node03 ip -o -4 addr show dev ib0 2>/dev/null | grep -q 'inet 10.213.178.13/24' && break
  sleep 1
done
check "after a reboot node03's ib0 has its address again" \
  sh -c "$TESTBED exec node03 ip -o -4 addr show dev ib0 | grep -q 'inet 10.213.178.13/24'"
check "after a reboot node03's ib0 MTU is 4092 again (got $(ib_mtu node03))" test "$(ib_mtu node03)" = 4092

# --- MLNX_OFED from a bundle beside the inventory ---
# Not a real bundle: placeholder packages with NVIDIA's names and versions
# (+simulated), and 256 MiB of random bytes standing for its sources.
good=$(tb ofed-bundle "$WORK" --src-mib 256) || { echo "building the simulated bundle failed"; exit 1; }
wrong=$(tb ofed-bundle "$WORK" --distro ubuntu22.04 --src-mib 1) || { echo "building the wrong bundle failed"; exit 1; }
good=$(basename "$good")
wrong=$(basename "$wrong")
partial_size() {  # partial_size NODE: bytes of the bundle copy's partial file on the node (0: none)
  tb exec "$1" sh -c "stat -c %s /var/cache/clusterctl-ofed/$good.clusterctl-partial 2>/dev/null || echo 0"
}
openibd_starts() {  # openibd_starts NODE: how often the (simulated) openibd started
  tb exec "$1" sh -c 'journalctl -u openibd -o cat 2>/dev/null | grep -c "would load the HCA driver" || true'
}
rdma_core_version() { tb exec "$1" dpkg-query -W -f='${Version}' rdma-core; }
inbox_version=$(rdma_core_version node02)

sed -i "s/^vars:\$/vars:\n  rdma_stack: mlnx_ofed\n  rdma_ofed_bundle: $wrong/" "$inventory"
"$CLUSTERCTL" deploy "$inventory" --json >"$WORK/wrong.json" 2>"$WORK/wrong.err"
check "a bundle for another distribution fails the deploy" test $? -ne 0
check "it is refused on every node naming both distributions" python3 -c '
import json,sys
failed={}
for line in open(sys.argv[1]):
    try: e=json.loads(line)
    except ValueError: continue
    if e.get("event")=="step" and e.get("status")=="failed": failed[e["host"]]=(e["step"],e.get("error",""))
for n in ("node01","node02","node03"):
    step,error=failed[n]
    assert step=="rdma/bundle fits the node", failed[n]
    assert "built for ubuntu22.04; this node runs debian12" in error, error
' "$WORK/wrong.json" || grep -m3 '"failed"' "$WORK/wrong.json"
check "nothing changed: no bundle on node02, rdma-core still the distribution's ($inbox_version)" \
  sh -c "! $TESTBED exec node02 test -e /var/cache/clusterctl-ofed && test '$(rdma_core_version node02)' = '$inbox_version'"

# The right bundle, with no network but the controller.
sed -i "s/rdma_ofed_bundle: $wrong/rdma_ofed_bundle: $good/" "$inventory"
tb offline >/dev/null 2>&1
check "offline: node02 cannot reach the apt proxy" \
  sh -c "! $TESTBED exec node02 timeout 5 bash -c 'exec 3<>/dev/tcp/$TESTBED_SUBNET.1/3142' 2>/dev/null"
bundle_size=$(stat -c %s "$WORK/$good")
"$CLUSTERCTL" deploy "$inventory" --json >"$WORK/killed.json" 2>"$WORK/killed.err" &
deploy_pid=$!
for i in $(seq 1200); do
  [ "$(partial_size node02)" -ge $((bundle_size / 4)) ] && break
  kill -0 $deploy_pid 2>/dev/null || break
  sleep 0.05
done
kill -9 $deploy_pid 2>/dev/null
wait $deploy_pid 2>/dev/null
killed_at=$(partial_size node02)
echo "# controller killed with node02's copy at $killed_at of $bundle_size bytes"
check "the kill came halfway through node02's copy" test "$killed_at" -gt 0 -a "$killed_at" -lt "$bundle_size"
start=$(date +%s)
"$CLUSTERCTL" deploy "$inventory" --json >"$WORK/ofed.json" 2>"$WORK/ofed.err"
rc=$?
echo "# the resumed OFED deploy: $(seconds_since "$start")s"
check "the resumed deploy exits 0 with the apt proxy stopped" test $rc -eq 0 || tail -20 "$WORK/ofed.err"
check "node02's copy resumed where it stopped (at or after byte $killed_at), not from the start" python3 -c '
import json,sys,re
for line in open(sys.argv[1]):
    try: e=json.loads(line)
    except ValueError: continue
    if e.get("event")=="step" and e.get("host")=="node02" and e.get("step")=="rdma/bundle":
        at=[int(m.group(1)) for d in e.get("differences",[]) for m in [re.search(r"upload resumed at byte (\d+)",d)] if m]
        assert at and at[0]>=int(sys.argv[2]), e
        sys.exit(0)
sys.exit("no rdma/bundle step for node02")
' "$WORK/ofed.json" "$killed_at"
for n in node01 node02 node03; do
  check "$n: NVIDIA's rdma-core (simulated) replaced the distribution's (got $(rdma_core_version "$n"))" \
    sh -c "case '$(rdma_core_version "$n")' in *mlnx*+simulated) ;; *) exit 1 ;; esac"
  check "$n: mlnx-ofed-basic is installed and held" sh -c "$TESTBED exec $n apt-mark showhold | grep -qx mlnx-ofed-basic"
  check "$n: openibd started exactly once (got $(openibd_starts "$n"))" test "$(openibd_starts "$n")" = 1
  check "$n: no partial copy left" test "$(partial_size "$n")" = 0
done
"$CLUSTERCTL" facts "$inventory" --json >"$WORK/facts-ofed.json" 2>/dev/null
check "facts: node02's RDMA stack is mlnx_ofed, its version marked simulated" python3 -c '
import json,sys
s=json.load(open(sys.argv[1]))["hosts"]["node02"]["facts"]["rdma_stack"]
assert s["stack"]=="mlnx_ofed" and s["version"].endswith("+simulated"), s
' "$WORK/facts-ofed.json"
tb online >/dev/null 2>&1

"$CLUSTERCTL" deploy "$inventory" --json >"$WORK/ofed-again.json" 2>"$WORK/ofed-again.err"
check "the deploy after the switch exits 0" test $? -eq 0
check "it changes nothing on any node" \
  test "$(changed_of "$WORK/ofed-again.json" node01)$(changed_of "$WORK/ofed-again.json" node02)$(changed_of "$WORK/ofed-again.json" node03)" = 000
check "openibd still started once on node02 (got $(openibd_starts node02))" test "$(openibd_starts node02)" = 1
finish
