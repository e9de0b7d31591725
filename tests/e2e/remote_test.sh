#!/usr/bin/env bash
# End-to-end test of SSH fan-out, the agent, `facts` and `run` (issue: "Reaching
# every node fast") on a 3-node testbed, node02 and node03 with 4 GPUs and 2 HCAs.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-remote-XXXXXX)
trap 'tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT

tb down >/dev/null 2>&1
INV=$(tb up 3 --gpus 4 --hcas 2 2>/dev/null) || { echo "testbed up failed"; exit 1; }

# --- facts ------------------------------------------------------------------
"$CLUSTERCTL" facts "$INV" >"$WORK/facts.txt" 2>"$WORK/facts.err"
check "facts exits 0 on a healthy testbed" test $? -eq 0
cat "$WORK/facts.txt"
check "new host keys are recorded and said so" grep -q "new host key for node01 accepted and recorded" "$WORK/facts.err"
"$CLUSTERCTL" facts --json "$INV" >"$WORK/facts.json" 2>/dev/null
jq_() { python3 -c "import json,sys; d=json.load(open('$WORK/facts.json')); print($1)"; }
check "facts: OS is Debian 12" test "$(jq_ "d['hosts']['node02']['facts']['os']['id'] + ' ' + d['hosts']['node02']['facts']['os']['version_id']")" = "debian 12"
check "facts: CPU count matches nproc" test "$(jq_ "d['hosts']['node01']['facts']['cpu']['cpus']")" = "$(nproc)"
mem_kib=$(awk '/MemTotal/ {print $2}' /proc/meminfo)
check "facts: memory matches /proc/meminfo" test "$(jq_ "d['hosts']['node01']['facts']['memory']['total_mib']")" = "$((mem_kib / 1024))"
check "facts: node02 has 4 H100 GPUs" test "$(jq_ "str(d['hosts']['node02']['facts']['pci']['gpu_count']) + ' ' + d['hosts']['node02']['facts']['pci']['gpu_model']")" = "4 H100-SXM5-80GB"
check "facts: node03 has 2 IB HCAs with active 200 Gb/s ports" test "$(jq_ "sum(1 for p in d['hosts']['node03']['facts']['ib_ports'] if p['state'] == 'ACTIVE' and p['rate_gbps'] == 200)")" = 2
check "facts: the head node has no GPUs" test "$(jq_ "d['hosts']['node01']['facts']['pci']['gpu_count']")" = 0
check "facts: node02 sees its own address" test "$(jq_ "[a['address'] for i in d['hosts']['node02']['facts']['interfaces'] for a in i['addresses'] if a['family']=='inet' and a['address'].startswith('$TESTBED_SUBNET')][0]")" = "$TESTBED_SUBNET.12"
check "facts are stored in the state" test "$(sqlite3 "$(dirname "$INV")/.clusterctl/state.db" 'select count(*) from facts')" = 3

# --- run ------------------------------------------------------------------------
"$CLUSTERCTL" run "$INV" -- uname -r >"$WORK/run.txt" 2>&1
check "run -- uname -r collapses identical output into one block" grep -q "^node\[01-03\] (3 hosts, exit 0)" "$WORK/run.txt"
"$CLUSTERCTL" run "$INV" -- printf '%s' '$(reboot); `id`' >"$WORK/quote.txt" 2>&1
check "run passes arguments without a shell" grep -q '^\$(reboot); `id`$' "$WORK/quote.txt"
"$CLUSTERCTL" run "$INV" --limit 'compute,!node03' -- hostname >"$WORK/limit.txt" 2>&1
check "--limit with an exclusion selects node02 only" bash -c "grep -q '^node02 (1 host' '$WORK/limit.txt' && ! grep -q node03 '$WORK/limit.txt'"
"$CLUSTERCTL" run "$INV" --limit nod02 -- true 2>"$WORK/badlimit.txt"
check "a --limit that names nothing exits 2 with a suggestion" bash -c "[ $? -eq 2 ] && grep -q \"did you mean 'node02'\" '$WORK/badlimit.txt'"

# --- a changed host key is refused for that host only --------------------------
old_fp=$(sqlite3 "$(dirname "$INV")/.clusterctl/state.db" "select host_key_sha256 from hosts where name='node02'")
tb rekey node02 >/dev/null 2>&1
new_fp=$(ssh-keygen -lf "$TESTBED_STATE/nodes/node02/root/etc/ssh/ssh_host_ed25519_key.pub" | awk '{print $2}')
"$CLUSTERCTL" run "$INV" -- hostname >"$WORK/rekey.txt" 2>&1
rc=$?
check "after rekey the run exits 1" test $rc -eq 1
check "node02 is refused with both fingerprints" grep -q "node02: failed: HOST KEY CHANGED for node02: recorded ssh-ed25519 $old_fp, presented ssh-ed25519 $new_fp" "$WORK/rekey.txt"
check "the other nodes still ran" bash -c "grep -q '^node01 (1 host, exit 0)' '$WORK/rekey.txt' && grep -q '^node03 (1 host, exit 0)' '$WORK/rekey.txt'"
"$CLUSTERCTL" hostkey forget "$INV" node02 2>/dev/null
check "after hostkey forget, node02 is accepted again" "$CLUSTERCTL" run "$INV" --limit node02 -- true

# --- a partition during a run -------------------------------------------------------
(sleep 2; tb partition node03 >/dev/null 2>&1) &
start=$(date +%s)
"$CLUSTERCTL" run "$INV" -- sleep 5 >"$WORK/partition.txt" 2>&1
rc=$?; took=$(seconds_since "$start")
wait
tb heal node03 >/dev/null 2>&1
cat "$WORK/partition.txt"
check "partitioned node03 is reported unreachable" grep -q "^node03: unreachable" "$WORK/partition.txt"
check "the others finished" grep -q "^node\[01-02\] (2 hosts, exit 0)" "$WORK/partition.txt"
check "within the timeout (took ${took}s, connect_timeout 5 s + keepalive 5 s + sleep 5)" test "$took" -le 20

# --- faults, each a clear per-host error ----------------------------------------------
ssh-keygen -q -t ed25519 -N '' -f "$WORK/wrong_key"
cat >"$WORK/faults.yaml" <<YAML
cluster: faults
connection: {key_file: $TESTBED_STATE/ssh/id_ed25519, connect_timeout: 3}
hosts:
  wrongkey: {address: $TESTBED_SUBNET.12, connection: {key_file: $WORK/wrong_key}}
  refused: {address: $TESTBED_SUBNET.13, connection: {port: 2222}}
  nosuchhost: {address: no-such-host.invalid}
  silent: {address: $TESTBED_SUBNET.99}
  node01: {address: $TESTBED_SUBNET.11}
YAML
start=$(date +%s)
"$CLUSTERCTL" run "$WORK/faults.yaml" -- true >"$WORK/faults.txt" 2>&1
check "faulty hosts do not stop the healthy one" grep -q "^node01 (1 host, exit 0)" "$WORK/faults.txt"
check "wrong key: refused key named" grep -q "wrongkey: failed: .*refused key $WORK/wrong_key for user root" "$WORK/faults.txt"
check "refused connection" grep -q "refused: unreachable: .*Connection refused" "$WORK/faults.txt"
check "unknown host" grep -q "nosuchhost: unreachable: .*cannot resolve no-such-host.invalid" "$WORK/faults.txt"
check "silent address times out" grep -q "silent: unreachable: .*connect timed out" "$WORK/faults.txt"
check "all faults reported in bounded time ($(seconds_since "$start")s)" test "$(seconds_since "$start")" -le 15

"$CLUSTERCTL" run "$INV" --limit node02 -- sh -c 'kill -9 $PPID; sleep 2' >"$WORK/killed.txt" 2>&1
check "an agent killed mid-request is a per-host error" grep -q "node02: unreachable: the agent ended in the middle of a request" "$WORK/killed.txt"

"$CLUSTERCTL" run "$INV" --limit node02,node03 -- sh -c 'if [ "$(hostname)" = node03 ]; then sleep 1; systemctl reboot; sleep 60; fi' >"$WORK/reboot.txt" 2>&1
check "a node rebooting mid-session is a per-host error" grep -q "node03: unreachable: connection lost" "$WORK/reboot.txt"
check "the other node of that run finished" grep -q "^node02 (1 host, exit 0)" "$WORK/reboot.txt"
for _ in $(seq 60); do tb ssh node03 true 2>/dev/null && break; sleep 0.5; done

tb exec node03 sh -c 'printf "#!/bin/sh\ncase \"\$1\" in -m) echo riscv64;; *) exec /bin/uname \"\$@\";; esac\n" >/usr/local/bin/uname; chmod +x /usr/local/bin/uname'
"$CLUSTERCTL" facts "$INV" --limit node03 >/dev/null 2>"$WORK/arch.txt"
# aarch64 too where the build made its agent (cmake/Aarch64NodePrograms.cmake).
builds=x86_64
[ -f "$(dirname "$CLUSTERCTL")/clusterctl-agent-aarch64" ] && builds="aarch64, x86_64"
check "a node of another architecture names the builds that exist" grep -qF "node03: failed: node03 is riscv64; clusterctl-agent builds exist for: $builds" "$WORK/arch.txt"
tb exec node03 rm -f /usr/local/bin/uname

# --- a non-root user: sudo, a jump host, a sudo password -----------------------------
cat >"$WORK/admin.yaml" <<YAML
cluster: admin
connection: {user: admin, key_file: $TESTBED_STATE/ssh/id_ed25519, connect_timeout: 5}
hosts:
  node01: {address: $TESTBED_SUBNET.11}
  node[02-03]:
    address: $TESTBED_SUBNET.[12-13]
    connection: {jump_host: root@$TESTBED_SUBNET.11}
YAML
tb exec node02 rm -rf /var/lib/clusterctl
"$CLUSTERCTL" run "$WORK/admin.yaml" -- id -u >"$WORK/admin.txt" 2>&1
check "admin via sudo -n runs as root everywhere, node02-03 through the jump host" grep -q "^node\[01-03\] (3 hosts, exit 0)" "$WORK/admin.txt"
check "the agent was installed through sudo on node02" grep -q "node02: note: installed clusterctl-agent" "$WORK/admin.txt"
check "the jump host's key was recorded" grep -q "new host key for jump host root@$TESTBED_SUBNET.11:22" "$WORK/admin.txt"
check "the installed agent is root-owned" test "$(tb exec node02 stat -c %U /var/lib/clusterctl/agent)" = root

CLUSTERCTL_SUDO_PASSWORD=unused-secret "$CLUSTERCTL" run "$WORK/admin.yaml" --limit node01 -- id -u >"$WORK/sudo0.txt" 2>&1
check "a sudo password where sudo needs none is never sent (the agent would read it as a frame)" grep -q "^node01 (1 host, exit 0)" "$WORK/sudo0.txt"

tb exec node01 sh -c 'echo "admin:correct-horse" | chpasswd && echo "admin ALL=(ALL) ALL" >/etc/sudoers.d/admin'
"$CLUSTERCTL" run "$WORK/admin.yaml" --limit node01 -- id -u >"$WORK/sudo1.txt" 2>&1
check "sudo needing a password is a clear error" grep -q "node01: failed: sudo on node01 needs a password for admin" "$WORK/sudo1.txt"
CLUSTERCTL_SUDO_PASSWORD=wrong "$CLUSTERCTL" run "$WORK/admin.yaml" --limit node01 -- id -u >"$WORK/sudo2.txt" 2>&1
check "a wrong sudo password is refused" grep -q "node01: failed: sudo on node01 rejected the password" "$WORK/sudo2.txt"
CLUSTERCTL_SUDO_PASSWORD=correct-horse "$CLUSTERCTL" run "$WORK/admin.yaml" --limit node01 -- id -u >"$WORK/sudo3.txt" 2>&1
check "the right sudo password works" grep -q "^node01 (1 host, exit 0)" "$WORK/sudo3.txt"
check "the sudo password is in no output, log or state" bash -c "! grep -rqE 'correct-horse|unused-secret' '$WORK'/*.txt '$WORK/.clusterctl'"
finish
