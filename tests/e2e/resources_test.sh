#!/usr/bin/env bash
# End-to-end idempotence test of every resource kind on a real node: the first
# deploy changes each step, a --verify re-run checks each on the node and
# changes nothing with no mutating command; plus a role that reboots a node.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-resources-XXXXXX)
trap 'tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT

mkdir -p "$WORK/roles"
cp "$(dirname "$0")"/resources/*.yaml "$WORK/roles/"
head -c 5000000 /dev/urandom >"$WORK/blob.bin"
write_inventory() {
  cat >"$WORK/inventory.yaml" <<YAML
cluster: e2eres
connection: {key_file: $TESTBED_STATE/ssh/id_ed25519, connect_timeout: 5}
vars: {reboot_generation: ${REBOOT_GENERATION:-1}, chrony_no_clock_control: true}
hosts:
  node[01-03]:
    address: $TESTBED_SUBNET.[11-13]
groups:
  everything: {hosts: node02, roles: [every-resource]}
  rebooting: {hosts: node03, roles: [reboot-probe]}
YAML
}
steps_json() { grep '"event":"step"' "$1"; }
count() { python3 -c 'import json,sys; print(sum(1 for l in sys.stdin if eval(sys.argv[1], {}, {"e": json.loads(l)})))' "$2" <"$1"; }

tb down >/dev/null 2>&1
tb up 3 >/dev/null 2>&1 || { echo "testbed up failed"; exit 1; }
write_inventory
boot_before=$(tb ssh node03 cat /proc/sys/kernel/random/boot_id)
"$CLUSTERCTL" deploy --json "$WORK/inventory.yaml" >"$WORK/first.json" 2>"$WORK/first.err"
rc=$?
check "the first deploy succeeds" test $rc -eq 0
[ $rc -eq 0 ] || { grep '"status":"failed"' "$WORK/first.json"; cat "$WORK/first.err"; }
steps_json "$WORK/first.json" | grep '"host":"node02"' | grep '"step":"every-resource/' >"$WORK/node02.first"
check "every resource step but the assert changed something on node02 ($(count "$WORK/node02.first" 'e["status"]=="changed"')/18)" \
  test "$(count "$WORK/node02.first" 'e["status"]=="changed"')" = 18

"$CLUSTERCTL" deploy --verify --json "$WORK/inventory.yaml" >"$WORK/verify.json" 2>&1
steps_json "$WORK/verify.json" | grep '"host":"node02"' | grep '"step":"every-resource/' >"$WORK/node02.verify"
check "--verify checked all 19 steps on node02" test "$(count "$WORK/node02.verify" 'e["checked"]')" = 19
check "... and none changed" test "$(count "$WORK/node02.verify" 'e["status"]!="ok"')" = 0
check "... with no mutating command" test "$(count "$WORK/node02.verify" 'e["mutating_commands"]>0')" = 0
grep -v '"status":"ok"' "$WORK/node02.verify" | head -5

check "user and group exist" tb ssh node02 'id -nG e2euser | grep -q e2egroup && getent group e2egroup | grep -q 6000'
# useradd -m writes /etc/passwd before the home: a run killed between the two
# leaves an account without one, which the next run must notice and make
tb ssh node02 rm -rf /home/e2euser
"$CLUSTERCTL" deploy --verify --json "$WORK/inventory.yaml" >"$WORK/home.json" 2>&1
check "a user's missing home is seen and made again, owned by the user, from /etc/skel" bash -c \
  "grep '\"step\":\"every-resource/user\"' '$WORK/home.json' | grep -q '\"status\":\"changed\"' &&
   $TESTBED ssh node02 'test \"\$(stat -c %U /home/e2euser)\" = e2euser && test -f /home/e2euser/.bashrc'"
check "file content, owner and mode" tb ssh node02 'test "$(stat -c "%U %a" /srv/clusterctl-e2e/config)" = "e2euser 640" && grep -q "verbose = true" /srv/clusterctl-e2e/settings'
check "the package is installed and held" tb ssh node02 'hello >/dev/null && dpkg-query -W -f="\${db:Status-Abbrev}" hello | grep -q ^hi'
check "the service runs" tb ssh node02 systemctl is-active clusterctl-e2e
check "sysctl checked at runtime and persisted" tb ssh node02 'test "$(cat /proc/sys/net/ipv4/ip_forward)" = 0 && grep -q "ip_forward = 0" /etc/sysctl.d/90-clusterctl-net.ipv4.ip_forward.conf'
check "tmpfs mounted and in fstab" tb ssh node02 'grep -q " /mnt/clusterctl-e2e tmpfs" /proc/mounts && grep -q clusterctl-e2e /etc/fstab'
check "the copied file is byte for byte the source" test "$(tb ssh node02 sha256sum /srv/clusterctl-e2e/blob | cut -d' ' -f1)" = "$(sha256sum "$WORK/blob.bin" | cut -d' ' -f1)"
check "the module is blacklisted" tb ssh node02 'grep -q "blacklist floppy" /etc/modprobe.d/clusterctl-blacklist-floppy.conf'

boot_after=$(tb ssh node03 cat /proc/sys/kernel/random/boot_id)
check "node03 rebooted for its role (new boot id)" test -n "$boot_after" -a "$boot_after" != "$boot_before"
check "the reboot is reported" bash -c "grep -q '\"step\":\"reboot-probe/reboot\".*rebooted' '$WORK/first.json' || grep '\"reboot-probe/reboot\"' '$WORK/first.json' | grep -q changed"
"$CLUSTERCTL" deploy --verify --json "$WORK/inventory.yaml" >/dev/null 2>&1
boot_again=$(tb ssh node03 cat /proc/sys/kernel/random/boot_id)
check "a re-run with nothing changed does not reboot" test "$boot_again" = "$boot_after"
REBOOT_GENERATION=2 write_inventory
"$CLUSTERCTL" deploy "$WORK/inventory.yaml" >/dev/null 2>&1
check "a new change reboots again" test "$(tb ssh node03 cat /proc/sys/kernel/random/boot_id)" != "$boot_after"
finish
