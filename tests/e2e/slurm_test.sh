#!/usr/bin/env bash
# End-to-end test of the Slurm stack (issue: "Slurm cluster end to end"):
# first deploy on a fresh 3-node testbed with simulated GPUs, jobs across
# it, GPU confinement, typed GPUs (gpu:h100; the two nodes added later are
# SIMULATED L40S: one cluster, two types), the site setup of issue 35
# (jobs-only SSH, memlock and nofile in jobs, /dev/shm's size, the GPU
# epilog), the no-op re-run that restarts nothing, growing by two nodes
# while a job runs, accounting, removing a node, and the munge key and
# database password never appearing in any output, log, the state store or
# a process's command line on a node during the deploy. node02 is also the
# backup controller (its state on the testbed's SIMULATED shared directory):
# the primary's slurmctld killed, the backup takes over with the running job
# and runs a new one, validate passes; the primary back takes over again.
# Accounting objects from the inventory (issue 36): alice runs jobs under
# her account and QoS, bob (no association) is refused, a job over the QoS's
# MaxWall is refused; changing the limit in the inventory changes exactly it.
# What users run (issue 37): alice's srun -N2 --mpi=pmix runs the mpi role's
# ring across both compute nodes, validate's mpi.cluster passes with what it
# measured; Lmod lists a module per CUDA toolkit (SIMULATED toolkits from the
# testbed's repository) and Open MPI, and loading one sets PATH; enroot and
# pyxis (SIMULATED) put --container-image in srun --help, and a job using it
# fails saying it is simulated; the GPU nodes' CDI spec is SIMULATED; an image
# made on node01 is pushed to its registry and alice's srun -N2 --container
# runs in it on both compute nodes (crun, rootless).
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-slurm-XXXXXX)
trap 'tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
now_ms() { echo $(($(date +%s%N) / 1000000)); }
on01() { tb ssh node01 "$@"; }
# The unit's InvocationID changes exactly when it (re)starts.
invocation() { tb ssh "$1" systemctl show -p InvocationID --value "$2"; }
all_idle() {  # all_idle N: waits up to 60 s until sinfo shows N idle nodes and nothing else
  local i
  for i in $(seq 60); do
    [ "$(on01 "sinfo -h -o '%T %D'" | awk '$1 == "idle" { n += $2 } $1 != "idle" { other = 1 } END { print (other ? -1 : n) }')" = "$1" ] && return 0
    sleep 1
  done
  on01 sinfo
  return 1
}

# The site's settings, added to the inventory after each `tb up` (which
# rewrites it): the base image's admin user keeps SSH to compute nodes
# without a job; /dev/shm gets 1 GiB; alice (made by slurm_site_checks.sh)
# charges physics, whose QoS standard refuses a job asking for over 10 minutes;
# so does carol, from a directory (issue 36): slapd on
# node01 with two users (carol and dave; alice is slurm_site_checks.sh's local user), its TLS from a CA made here as a site would
# (docs/inventory.md), beside the inventory.
directory_tls() {
  local d="$TESTBED_STATE/directory-tls"
  [ -s "$d/server.pem" ] && return 0
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/ca.key" -out "$d/ca.pem" -days 7 \
    -subj "/CN=testbed directory CA" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/server.key" -out "$d/server.csr" -subj /CN=node01 2>/dev/null
  printf 'subjectAltName=DNS:node01\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$d/ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -out "$d/server.pem" -days 7 \
    -extfile "$d/ext" 2>/dev/null
}
# NVIDIA's container stack (issue 37) from the testbed's local repository,
# where the driver comes from (SIMULATED packages: tests/testbed/lib/
# container_repo.sh), with the site's NGC credentials beside the inventory
# (a key made here, scanned for below).
ngc_credentials() {
  [ -s "$TESTBED_STATE/ngc.netrc" ] && return 0
  printf 'machine nvcr.io login $oauthtoken password %s\n' "$(head -c 24 /dev/urandom | base64 | tr -d '/+=')" >"$TESTBED_STATE/ngc.netrc"
}
site_vars() {
  directory_tls
  ngc_credentials
  sed -i "s|^vars:\$|vars:\n  pyxis_repository: $(sed -n 's/^  nvidia_driver_repository: //p' "$1")\n  pyxis_repository_trusted: true\n  enroot_credentials_file: ngc.netrc|" "$1"
  sed -i 's/^vars:$/vars:\n  slurm_ssh_allow_users: [admin]\n  slurm_node_shm_size: 1G/' "$1"
  sed -i 's/^groups:$/groups:\n  directory:\n    hosts: node01/' "$1"
  sed -i '/^vars:$/r /dev/stdin' "$1" <<'YAML'
  ldap_tls_ca_file: directory-tls/ca.pem
  ldap_tls_cert_file: directory-tls/server.pem
  ldap_tls_key_file: directory-tls/server.key
  directory_users:
    - {name: carol, uid: 5001, gid: 5000, gecos: Carol Shaw}
    - {name: dave, uid: 5002, gid: 5000}
  directory_groups:
    - {name: research, gid: 5000, members: [carol, dave]}
  cuda_toolkit_versions: ["12-4", "12-6"]
  containers_runtime: crun
  registry_mode: local
  registry_tls_ca_file: directory-tls/ca.pem
  registry_tls_cert_file: directory-tls/server.pem
  registry_tls_key_file: directory-tls/server.key
  slurm_qos:
    - {name: standard, priority: 10, max_wall: "00:10:00", max_tres_per_user: "cpu=64", flags: [DenyOnLimit]}
    - {name: gpu, max_tres_per_user: "gres/gpu=2", flags: [DenyOnLimit]}
    - {name: budget, grp_tres_mins: "gres/gpu=1"}
  slurm_accounts:
    - {name: physics, description: physics group, fairshare: 10, qos: [standard, gpu, budget], default_qos: standard}
  slurm_extra_config: "PriorityCalcPeriod=1"
  slurm_users:
    - {name: alice, account: physics}
    - {name: carol, account: physics}
YAML
}

tb down >/dev/null 2>&1
inventory=$(tb up 3 --gpus 2 --backup-controller 2>/dev/null) || { echo "testbed up failed"; exit 1; }
site_vars "$inventory"
# The plain users of the site and accounting checks, the same UIDs on every
# node, there before the deploy as a directory's users would be: slurmctld
# maps an association's user name to a UID when it loads the association,
# and looks again for names it could not map only hourly or on reconfigure.
# alice has an association (slurm_users), bob none.
for n in node01 node02 node03; do
  tb ssh "$n" 'useradd --create-home --uid 2001 --shell /bin/bash alice && useradd --uid 2002 --shell /bin/bash bob &&
    install -d -o alice -g alice -m 0700 ~alice/.ssh && install -o alice -g alice -m 0600 ~/.ssh/authorized_keys ~alice/.ssh/'
done
outputs="$WORK/outputs"  # everything clusterctl printed, for the secret scan
mkdir -p "$outputs"

# While the first deploy runs, every process's command line is sampled (a
# secret must never be an argument: /proc/*/cmdline is world-readable). Read
# from this machine's /proc, which shows every node's processes (and the
# controller's): entering a node (tb exec's nsenter) while it reboots could
# leave an nsenter stopped with its child's zombie in the node's PID
# namespace, which then never finished dying (CI: node02's reboot hung).
# One process for the whole sampling (a fork per process read would take a
# core of this 2-core machine); it stops by itself after 10 minutes.
# Each distinct command line is written once.
sample_cmdlines() {
  exec python3 -c '
import glob, sys, time
end, seen = time.time() + 600, set()
while time.time() < end:
    for f in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            line = open(f, "rb").read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if line not in seen:
            seen.add(line)
            sys.stdout.write(line + "\n")
    sys.stdout.flush()
    time.sleep(0.2)
'
}
sample_cmdlines >"$outputs/cmdlines.txt" &
sampler=$!
start=$(now_ms)
"$CLUSTERCTL" plan "$inventory" >"$outputs/plan.txt" 2>&1
"$CLUSTERCTL" deploy "$inventory" >"$outputs/first.txt" 2>&1
rc=$?
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
check "command lines on the nodes were sampled during the deploy ($(wc -l <"$outputs/cmdlines.txt") lines)" \
  test "$(grep -c 'clusterctl-agent' "$outputs/cmdlines.txt")" -gt 0
echo "# first deploy (with its plan): $(( $(now_ms) - start )) ms"
check "first deploy exits 0" test $rc -eq 0
[ $rc -eq 0 ] || { tail -30 "$outputs/plan.txt"; tail -30 "$outputs/first.txt"; }
# slurmctld's package started it after slurm.conf was written: the restart
# slurm.conf notified is not needed (docs/roles.md), so it started once.
starts=$(tb ssh node01 "journalctl -u slurmctld -o cat | grep -c '^Started'")
check "the first deploy started slurmctld once, no restart after its package's start (started $starts times)" test "$starts" = 1
check "sinfo shows node02 and node03 idle" all_idle 2
hosts=$(on01 srun -N2 hostname | sort | paste -sd,)
check "srun -N2 hostname runs on every compute node (got $hosts)" test "$hosts" = node02,node03
check "slurm.conf is the same bytes on every node" \
  test "$(for n in node01 node02 node03; do tb ssh $n sha256sum /etc/slurm/slurm.conf; done | awk '{print $1}' | sort -u | wc -l)" = 1
check "slurm.conf has the detected CPU layout and Gres=gpu:h100:2 (the SIMULATED GPUs' PCI model)" \
  on01 "grep -qE '^NodeName=node\[02-03\] CPUs=[0-9]+ .*Gres=gpu:h100:2 ' /etc/slurm/slurm.conf"
check "gres.conf types the GPUs and names their files (Debian 12's Slurm has no gpu_nvml: no AutoDetect)" \
  on01 "grep -qx 'NodeName=node\[02-03\] Name=gpu Type=h100 File=/dev/nvidia\[0-1\]' /etc/slurm/gres.conf"
gres=$(on01 "sinfo -h -o '%G'")
check "sinfo -o %G shows typed GPUs (got $gres)" grep -qx 'gpu:h100:2' <<<"$gres"
typed=$(on01 "srun --gres=gpu:h100:1 sh -c 'hostname; echo \$CUDA_VISIBLE_DEVICES'" | paste -sd' ')
check "srun --gres=gpu:h100:1 runs (got $typed)" grep -qxE 'node0[23] [01]' <<<"$typed"
gpus=$(on01 "srun --gres=gpu:2 sh -c 'echo \$CUDA_VISIBLE_DEVICES'")
check "a job with --gres=gpu:2 sees two devices (CUDA_VISIBLE_DEVICES=$gpus)" test "$gpus" = 0,1
denied=$(on01 "srun --gres=gpu:1 sh -c 'head -c1 /dev/nvidia1 2>&1'" 2>/dev/null)
check "a job given one GPU may not open the other (cgroup: $denied)" grep -q "Operation not permitted" <<<"$denied"
mode=$(tb ssh node02 "stat -c '%a %U:%G' /etc/munge/munge.key")
check "munge.key is 0400 munge:munge (got $mode)" test "$mode" = "400 munge:munge"
key_sums=$(for n in node01 node02 node03; do tb ssh $n sha256sum /etc/munge/munge.key; done | awk '{print $1}' | sort -u)
check "every node has the controller's generated key" test "$key_sums" = "$(sha256sum <"$TESTBED_STATE/.clusterctl/secrets/munge_key" | awk '{print $1}')"
check "slurmdbd.conf is 0600 slurm" test "$(on01 "stat -c '%a %U' /etc/slurm/slurmdbd.conf")" = "600 slurm"
check "slurm.conf names node01, then the backup node02" \
  test "$(on01 "grep ^SlurmctldHost= /etc/slurm/slurm.conf" | paste -sd,)" = SlurmctldHost=node01,SlurmctldHost=node02
ping=$(on01 scontrol ping | paste -sd';')
check "scontrol ping: the primary and the backup are up ($ping)" \
  grep -q 'primary) at node01 is UP;.*backup) at node02 is UP' <<<"$ping"
check "the backup reads the primary's state on the SIMULATED shared directory" \
  tb ssh node02 "grep -qx testbed /srv/simulated-shared/slurmctld/clustername && test -e /srv/simulated-shared/SIMULATED"
no_slurmdbd_on02() { ! tb ssh node02 systemctl is-active -q slurmdbd; }  # tb is a function: not in a bash -c
check "slurmdbd runs only on the primary" no_slurmdbd_on02

source "$(dirname "$0")/slurm_site_checks.sh"
source "$(dirname "$0")/slurm_accounting_checks.sh"
source "$(dirname "$0")/slurm_gpu_accounting_checks.sh"
source "$(dirname "$0")/slurm_user_software_checks.sh"
source "$(dirname "$0")/slurm_container_checks.sh"

# The directory (issue 36): slapd on node01, sssd on every node.
check "slapd serves ldaps and ldapi only (no clear-text LDAP on 389)" \
  on01 "systemctl is-active -q slapd && ss -ltn | grep -q ':636 ' && ! ss -ltn | grep -q ':389 '"
resolved() {  # every node's getent passwd carol dave, as NODE NAME UID GID lines
  local n
  for n in node01 node02 node03; do
    tb ssh "$n" getent passwd carol dave | awk -F: -v n="$n" '{ print n, $1, $3, $4 }'
  done
}
for i in $(seq 30); do  # sssd goes online a moment after its start
  [ "$(resolved | wc -l)" = 6 ] && break
  sleep 1
done
check "every node resolves both directory users with the directory's UIDs ($(resolved | paste -sd';'))" \
  test "$(resolved | awk '{ print $2, $3, $4 }' | sort | uniq -c | awk '{ print $1, $2, $3, $4 }' | paste -sd,)" = "3 carol 5001 5000,3 dave 5002 5000"
check "the group resolves with its members" test "$(tb ssh node03 getent group research)" = "research:*:5000:carol,dave"
ids=$(on01 "cd /tmp && runuser -u carol -- srun -N2 id" | sort -u)
check "a directory user runs srun -N2 id on both compute nodes (got $(paste -sd';' <<<"$ids"))" \
  test "$(grep -c '^uid=5001(carol) gid=5000(research) groups=5000(research)$' <<<"$ids")-$(on01 "cd /tmp && runuser -u carol -- srun -N2 hostname" | sort | paste -sd,)" = 1-node02,node03
home=$(on01 "su - carol -c 'touch ~/written && stat -c \"%n %U:%G %a\" ~'" 2>&1)
check "carol's first login makes her home on node01 (pam_mkhomedir), hers, writable and 0700 as directory-homes makes them ($home)" \
  test "$home" = "/home/carol carol:research 700"
"$CLUSTERCTL" validate "$inventory" --checks users >"$outputs/validate-users.txt" 2>&1
rc=$?
check "validate's users.consistent passes on every node (exit $rc)" \
  grep -qE "^users.consistent +pass +node\[01-03\] " "$outputs/validate-users.txt"
check "validate's users.job: carol's job runs with her UID" grep -qE "^users.job +pass +testbed +uid 5001 " "$outputs/validate-users.txt"
[ $rc -eq 0 ] || cat "$outputs/validate-users.txt"
# A local account shadows the directory's (useradd refuses: sssd resolves the name).
tb ssh node03 "echo 'carol:x:1234:1234::/nonexistent:/usr/sbin/nologin' >>/etc/passwd"
"$CLUSTERCTL" validate "$inventory" --checks users.consistent >"$outputs/validate-users-bad.txt" 2>&1
rc=$?
check "a node resolving carol to another UID fails users.consistent, naming the node (exit $rc)" \
  grep -q '^  users.consistent on node03: carol is 1234:1234 here, 5001:5000 in the directory$' "$outputs/validate-users-bad.txt"
grep -q 'node03: carol is 1234' "$outputs/validate-users-bad.txt" || cat "$outputs/validate-users-bad.txt"
tb ssh node03 "sed -i '/^carol:x:1234:/d' /etc/passwd"

# No-op: nothing changes, nothing restarts.
daemons() { echo "$(invocation node01 slurmctld) $(invocation node02 slurmctld) $(invocation node02 slurmd) $(invocation node01 slurmdbd) $(invocation node02 munge)"; }
before=$(daemons)
start=$(now_ms)
"$CLUSTERCTL" deploy --json "$inventory" >"$outputs/second.json" 2>&1
rc=$?
echo "# no-op deploy: $(( $(now_ms) - start )) ms"
recap_changed=$(grep '"event":"recap"' "$outputs/second.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["changed"])')
check "second deploy exits 0 with changed=0 (got $recap_changed)" test "$rc-$recap_changed" = 0-0
"$CLUSTERCTL" deploy --verify "$inventory" >"$outputs/verify.txt" 2>&1
check "--verify on every node finds nothing to change" grep -q 'changed=0 failed=0' "$outputs/verify.txt"
grep -q 'changed=0 failed=0' "$outputs/verify.txt" || grep -vE '^ *$' "$outputs/verify.txt" | tail -20
after=$(daemons)
check "no daemon restarted" test "$before" = "$after"

# Grow by two nodes while a job runs on node02.
job=$(on01 "sbatch --parsable -N1 -w node02 --wrap 'sleep 25'")
slurmd_before="$(invocation node02 slurmd)"
munge_before="$(invocation node02 munge)"
inventory=$(tb up 5 --gpus 2 --gpu-model l40s 2>/dev/null)  # node04, node05: SIMULATED L40S
site_vars "$inventory"
"$CLUSTERCTL" plan --json "$inventory" >"$outputs/grow-plan.json" 2>&1
start=$(now_ms)
"$CLUSTERCTL" deploy --json "$inventory" >"$outputs/grow.json" 2>&1
rc=$?
echo "# add-nodes deploy: $(( $(now_ms) - start )) ms"
check "the add-nodes deploy exits 0" test $rc -eq 0
old_changes=$(grep '"event":"step"' "$outputs/grow.json" | grep -E '"host":"node0[1-3]"' | grep '"status":"changed"' |
  python3 -c 'import json,sys; print(" ".join(sorted({json.loads(l)["step"] for l in sys.stdin})))')
check "old nodes changed only /etc/hosts, slurm.conf, gres.conf, restarts and the primary's state saved for the backup ($old_changes)" test "$old_changes" = \
  "hosts/cluster hosts slurm-common/gres.conf slurm-common/slurm.conf slurm-controller/restart slurmctld slurm-controller/save state for the backup slurm-node/restart slurmd"
# Old nodes: exactly what the plan said. New nodes: the plan lists every
# step that could change; a package's own start of its service can make a
# predicted service step find nothing left to do.
plan_vs_deploy=$(python3 - "$outputs/grow-plan.json" "$outputs/grow.json" <<'PY'
import json, sys
def steps(path, status):
    return {(e["host"], e["step"]) for e in map(json.loads, (l for l in open(path) if '"event":"step"' in l)) if e["status"] == status}
predicted, changed = steps(sys.argv[1], "would-change"), steps(sys.argv[2], "changed")
old = lambda s: {x for x in s if x[0] in ("node01", "node02", "node03")}
problems = [f"old node {x} {'predicted, not changed' if x in predicted else 'changed, not predicted'}" for x in old(predicted) ^ old(changed)]
problems += [f"{x} changed, not predicted" for x in changed - predicted]
print("; ".join(problems) or "ok")
PY
)
check "the plan predicted what the deploy changed ($plan_vs_deploy)" test "$plan_vs_deploy" = ok
check "slurmd restarted on node02 (its slurm.conf changed)" test "$(invocation node02 slurmd)" != "$slurmd_before"
check "munged did not restart (the key did not change)" test "$(invocation node02 munge)" = "$munge_before"
check "the new nodes got slurmd" tb ssh node05 systemctl is-active slurmd
check "all four compute nodes end up idle (after the running job)" all_idle 4
gres=$(on01 "sinfo -h -o '%G %N'" | sort | paste -sd,)
check "sinfo shows both GPU types (got $gres)" test "$gres" = "gpu:h100:2 node[02-03],gpu:l40s:2 node[04-05]"
tres=$(on01 "sacctmgr -n -P show tres format=Type,Name" | grep '^gres|' | sort | paste -sd,)
check "the new GPU type is a TRES Slurm records (issue 50: AccountingStorageTRES kept in step; got $tres)" \
  test "$tres" = "gres|gpu,gres|gpu:h100,gres|gpu:l40s"
check "slurm.conf has one NodeName line per GPU type" \
  on01 "grep -q '^NodeName=node\[02-03\] .*Gres=gpu:h100:2 ' /etc/slurm/slurm.conf && grep -q '^NodeName=node\[04-05\] .*Gres=gpu:l40s:2 ' /etc/slurm/slurm.conf"
l40s=$(on01 "srun --gres=gpu:l40s:2 hostname")
check "srun --gres=gpu:l40s:2 runs on an L40S node (got $l40s)" grep -qxE 'node0[45]' <<<"$l40s"
h100=$(on01 "srun --gres=gpu:h100:2 hostname")
check "srun --gres=gpu:h100:2 runs on an H100 node (got $h100)" grep -qxE 'node0[23]' <<<"$h100"
untyped=$(on01 "srun -N4 --gres=gpu:1 hostname" | sort | paste -sd,)
check "an untyped --gres=gpu:1 runs across both types (got $untyped)" test "$untyped" = node02,node03,node04,node05
before="$(invocation node01 slurmctld) $(invocation node02 slurmd) $(invocation node04 slurmd)"
"$CLUSTERCTL" deploy --json "$inventory" >"$outputs/mixed-noop.json" 2>&1
rc=$?
recap_changed=$(grep '"event":"recap"' "$outputs/mixed-noop.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["changed"])')
check "with mixed GPU types a second deploy changes nothing (exit $rc, changed=$recap_changed)" test "$rc-$recap_changed" = 0-0
check "... and restarts nothing" test "$before" = "$(invocation node01 slurmctld) $(invocation node02 slurmd) $(invocation node04 slurmd)"

# A QoS limit changed in the inventory: exactly that limit changes.
changes() {  # changes FILE: "HOST STEP: DIFFERENCES" of each changed step in a deploy's --json events
  python3 -c 'import json,sys
print("; ".join(e["host"] + " " + e["step"] + ": " + ",".join(e["differences"]) for e in map(json.loads, (l for l in open(sys.argv[1]) if "\"event\":\"step\"" in l)) if e["status"] == "changed"))' "$1"
}
sed -i -e 's/max_wall: "00:10:00"/max_wall: "00:20:00"/' -e 's|max_tres_per_user: "gres/gpu=2"|max_tres_per_user: "gres/gpu=4"|' "$inventory"
"$CLUSTERCTL" deploy --json "$inventory" >"$outputs/qos-change.json" 2>&1
rc=$?
check "the deploy after max_wall 00:10:00 -> 00:20:00 and gpu's gres/gpu=2 -> 4 changed one step, those two QoS fields (exit $rc: $(changes "$outputs/qos-change.json"))" \
  test "$rc: $(changes "$outputs/qos-change.json")" = "0: node01 slurm-accounts/accounting objects: qos standard: MaxWall 00:10:00 -> 00:20:00,qos gpu: MaxTRESPerUser gres/gpu=2 -> gres/gpu=4"
qos=$(on01 "sacctmgr -n -P show qos where name=standard,gpu format=Name,Priority,MaxWall,MaxTRESPU,Flags" | sort | paste -sd';')
check "sacctmgr shows the new limits and the others as they were ($qos)" \
  test "$qos" = "gpu|0||gres/gpu=4|DenyOnLimit;standard|10|00:20:00|cpu=64|DenyOnLimit"
# A QoS made by hand is left alone (a --verify run checks the step on the
# node), until slurm_accounting_prune asks; root and normal stay.
on01 "sacctmgr -i add qos scratch >/dev/null"
"$CLUSTERCTL" deploy --verify --limit node01 "$inventory" >"$outputs/verify-hand-made.txt" 2>&1
check "a deploy --verify leaves the hand-made QoS scratch alone" \
  bash -c "grep -q 'changed=0 failed=0' '$outputs/verify-hand-made.txt' && '$TESTBED' ssh node01 sacctmgr -n -P show qos format=Name | grep -qx scratch"
sed -i 's/^vars:$/vars:\n  slurm_accounting_prune: true/' "$inventory"
"$CLUSTERCTL" deploy --json "$inventory" >"$outputs/prune.json" 2>&1
rc=$?
check "with slurm_accounting_prune the deploy deletes scratch, and only it (exit $rc: $(changes "$outputs/prune.json"))" \
  test "$rc: $(changes "$outputs/prune.json")" = "0: node01 slurm-accounts/accounting objects: qos scratch: delete (not in the inventory)"
check "sacctmgr shows the QoS normal and standard, root's association still there" \
  test "$(on01 "sacctmgr -n -P show qos format=Name" | sort | paste -sd,) $(on01 "sacctmgr -n -P show assoc where user=root format=Account")" = "budget,gpu,normal,standard root"
state=$(on01 "sacct -n -X -j '$job' -o State" | tr -d ' ')
check "the job that ran during the deploy completed (sacct: $state)" test "$state" = COMPLETED
listed=$(on01 sacct -a -n -X -S 2020-01-01 -o JobID | wc -l)
check "sacct lists the jobs ($listed)" test "$listed" -ge 4

# Failover: the primary's slurmctld killed (as a crash: SIGKILL), the backup
# takes over after slurm_controller_timeout (10 s here), from the shared state.
running=$(on01 "sbatch --parsable -N1 -w node03 --wrap 'sleep 300'")
wait_for() {  # wait_for SECONDS COMMAND...: polls each second
  local i
  for i in $(seq "$1"); do "${@:2}" >/dev/null 2>&1 && return 0; sleep 1; done
  return 1
}
job_state() { on01 "squeue -h -j '$1' -o %T"; }
job_running() { [ "$(job_state "$1")" = RUNNING ]; }
backup_log() { tb ssh node02 "grep -c -e \"$1\" /var/log/slurm/slurmctld.log"; }
# Counted from now: at the first deploy the backup started before the primary
# (which installs accounting first) and may have taken over and given back.
took_over() { [ "$(backup_log 'taking over')" -gt "$takeovers" ]; }
gave_back() { [ "$(backup_log 'REQUEST_CONTROL')" -gt "$givebacks" ] && on01 scontrol ping | grep -q 'primary) at node01 is UP'; }
check "a job runs on node03 before the failover" wait_for 30 job_running "$running"
# slurmctld saves job state after a change, at most every 5 s, and a job's
# start alone may not be saved (seen here: the backup recovered the job
# PENDING and drained node03, "Duplicate jobid"); a crash loses what was not
# saved. So the job is updated once it runs, and the kill waits (up to 7 s)
# for the save that follows.
# Compared in nanoseconds: a whole-second comparison passed on a save made
# earlier in the same second as the update, and the backup then recovered
# the job PENDING (seen in the fresh-clone runs).
seen=$(date +%s.%N)
on01 scontrol update JobId="$running" Comment=saved
saved_since_seen() {
  awk -v m="$(stat -c %.9Y "$TESTBED_STATE/shared/slurmctld/job_state")" -v s="$seen" 'BEGIN { exit !(m > s) }'
}
check "the primary saved the running job to the shared state" wait_for 7 saved_since_seen
takeovers=$(backup_log 'taking over') givebacks=$(backup_log 'REQUEST_CONTROL')
started_at=$(on01 "squeue -h -j '$running' -o %S")
start=$(now_ms)
tb ssh node01 systemctl kill -s KILL slurmctld
check "the backup takes over within 40 s" wait_for 40 took_over
echo "# takeover: $(( $(now_ms) - start )) ms"
# Right after taking over, the backup may show the job PENDING for a moment
# while it hears from node03 again (seen once in a fresh-clone run: RUNNING
# again seconds later). Still running means RUNNING with the start time it
# had: a job requeued by the takeover would start again, later.
wait_for 15 job_running "$running"
state="$(job_state "$running") since $(tb ssh node02 "squeue -h -j '$running' -o %S")"
check "the job started before the failover is still running ($state, started $started_at)" test "$state" = "RUNNING since $started_at"
[ "$state" = RUNNING ] || tb ssh node02 "grep -e Recovered -e 'taking over' -e Saving /var/log/slurm/slurmctld.log | tail -20"
new=$(on01 "timeout 60 srun -N1 -w node04 hostname")
check "a new job runs under the backup (got $new)" test "$new" = node04
# The Slurm checks that pass on this testbed (slurm.gpu_job needs a real GPU:
# the testbed's nvidia-smi is SIMULATED and fails).
"$CLUSTERCTL" validate "$inventory" --checks reachable,munge.decode,slurm.controller,slurm.conf,slurm.node,slurm.gres,slurm.srun \
  >"$outputs/validate-failover.txt" 2>&1
rc=$?
check "validate passes with the primary down (Slurm checks, exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || grep -v '^[a-z.]* *pass' "$outputs/validate-failover.txt" | head -20
tb ssh node01 systemctl start slurmctld
check "the primary takes over again" wait_for 40 gave_back
check "the job from before the failover still runs under the primary ($(job_state "$running"))" test "$(job_state "$running")" = RUNNING
on01 scancel "$running"
before=$(daemons)
"$CLUSTERCTL" deploy --json "$inventory" >"$outputs/after-failover.json" 2>&1
rc=$?
recap_changed=$(grep '"event":"recap"' "$outputs/after-failover.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["changed"])')
check "a deploy after the failover exits 0 with changed=0 (got $recap_changed)" test "$rc-$recap_changed" = 0-0
check "and restarts nothing" test "$before" = "$(daemons)"

# Remove node05 from the inventory.
sed -i 's/node\[01-05\]/node[01-04]/; s/\.\[11-15\]/.[11-14]/; s/node\[02-05\]/node[02-04]/' "$inventory"
"$CLUSTERCTL" deploy "$inventory" >"$outputs/remove.txt" 2>&1
rc=$?
check "the deploy that removes node05 exits 0" test $rc -eq 0
check "it says node05 was removed and what stays on it" grep -q 'node05: removed from the cluster.*Left on the machine' "$outputs/remove.txt"
check "slurm.conf no longer names node05" on01 "! grep -q node05 /etc/slurm/slurm.conf && grep -q 'node\[02-04\]' /etc/slurm/slurm.conf"
check "status shows node05 removed" bash -c "'$CLUSTERCTL' status '$inventory' | grep -q '^node05 .*removed'"
check "the remaining nodes are idle" all_idle 3
"$CLUSTERCTL" history "$inventory" >"$outputs/history.txt" 2>&1
"$CLUSTERCTL" status --json "$inventory" >"$outputs/status.json" 2>&1

# The daemon's view of Slurm (issue 35): a node drained by hand is listed
# with its reason (text, markup and all), not as the health check's; the
# reading leaves no run record. The daemon stops before its first drift check.
on01 "scontrol update nodename=node03 state=drain reason='e2e: <b>RMA</b> by hand'"
serve_port=19441
"$CLUSTERCTL" serve "$inventory" --listen "127.0.0.1:$serve_port" --slurm-interval 10s >"$outputs/serve.log" 2>&1 &
serve_pid=$!
serve_token=$("$CLUSTERCTL" serve "$inventory" --print-token 2>/dev/null)
runs_before=$(sqlite3 "$TESTBED_STATE/.clusterctl/state.db" 'SELECT COUNT(*) FROM runs')
for i in $(seq 40); do
  curl -s -H "Authorization: Bearer $serve_token" "http://127.0.0.1:$serve_port/api/v1/status" >"$WORK/serve-status.json" 2>/dev/null &&
    python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['slurm']['tried_at'] is None)" "$WORK/serve-status.json" 2>/dev/null && break
  sleep 0.2
done
curl -s -H "Authorization: Bearer $serve_token" "http://127.0.0.1:$serve_port/metrics" >"$WORK/serve-metrics.txt"
kill -TERM "$serve_pid"; wait "$serve_pid"
slurm_view=$(python3 - "$WORK/serve-status.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["slurm"]
n = {x["name"]: x for x in s["unavailable"]}
print("ok" if s["error"] == "" and s["controller"] == "node01" and s["nodes"] == 3 and list(n) == ["node03"]
      and n["node03"]["reason"].startswith("e2e: <b>RMA</b> by hand") and not n["node03"]["drained_by_health"]
      and "DRAIN" in n["node03"]["state"] else json.dumps(s))
PY
)
check "the daemon's status lists node03 drained by hand, with its reason (${slurm_view:0:300})" test "$slurm_view" = ok
check "its metrics count it as drained by another than the health check" \
  grep -q '^clusterctl_slurm_nodes_unavailable{drained_by="other"} 1$' "$WORK/serve-metrics.txt"
check "reading Slurm left no run record" test "$(sqlite3 "$TESTBED_STATE/.clusterctl/state.db" 'SELECT COUNT(*) FROM runs')" = "$runs_before"
on01 "scontrol update nodename=node03 state=resume"

# The secrets never appear anywhere they should not.
python3 - "$TESTBED_STATE/.clusterctl" "$outputs" "$WORK/nodelogs" <<'PY' >"$WORK/scan.txt"
import base64, os, sys
state, outputs, _ = sys.argv[1:]
secrets = {name: open(os.path.join(state, "secrets", name), "rb").read()
           for name in ("munge_key", "slurmdbd_password", "ldap_admin_password", "ldap_sssd_password",
                        "registry_push_password")}
secrets["ngc_api_key"] = open(os.path.join(state, "..", "ngc.netrc"), "rb").read().split()[-1]
forms = {}
for name, value in secrets.items():
    forms[name + " raw"] = value
    forms[name + " hex"] = value.hex().encode()
    forms[name + " base64"] = base64.b64encode(value)
    if len(value) > 64:  # any 48-byte slice of the key, in case of partial dumps
        forms[name + " hex slice"] = value[100:148].hex().encode()
        forms[name + " base64 slice"] = base64.b64encode(value[99:147])
files = [os.path.join(outputs, f) for f in os.listdir(outputs)]
files += [os.path.join(state, f) for f in os.listdir(state) if f.startswith("state.db")]
found = [f"{form} in {path}" for path in files for form, needle in forms.items() if needle in open(path, "rb").read()]
print("\n".join(found) if found else "clean")
PY
check "no form of the munge key, the DB, directory or registry push passwords, the NGC key in any output or the state db ($(head -3 "$WORK/scan.txt" | paste -sd';'))" test "$(cat "$WORK/scan.txt")" = clean
for n in node01 node02; do
  tb ssh $n 'journalctl --no-pager -o cat 2>/dev/null; cat /var/log/slurm/*.log /var/log/sssd/*.log /root/.bash_history 2>/dev/null'
done >"$WORK/nodelogs"
key_b64=$(base64 -w0 <"$TESTBED_STATE/.clusterctl/secrets/munge_key")
password=$(cat "$TESTBED_STATE/.clusterctl/secrets/slurmdbd_password")
admin_password=$(cat "$TESTBED_STATE/.clusterctl/secrets/ldap_admin_password")
sssd_password=$(cat "$TESTBED_STATE/.clusterctl/secrets/ldap_sssd_password")
ngc_key=$(awk '{ print $NF }' "$TESTBED_STATE/ngc.netrc")
check "nor in the nodes' journals, Slurm and sssd logs, root's history ($(wc -l <"$WORK/nodelogs") lines)" \
  bash -c "! grep -qF -e '${key_b64:0:40}' -e '$password' -e '$admin_password' -e '$sssd_password' -e '$ngc_key' '$WORK/nodelogs'"
check "nor in a process's command line during the first deploy" \
  bash -c "! grep -qF -e '$admin_password' -e '$sssd_password' -e '$password' -e '$ngc_key' '$outputs/cmdlines.txt'"

finish
