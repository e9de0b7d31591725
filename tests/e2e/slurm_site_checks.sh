# Sourced by slurm_test.sh after its first deploy (functions tb, on01,
# check): the Slurm setup of a GPU site (issue 35) on node02.
#  - Jobs-only SSH: a plain user (alice, with the testbed's key) is refused
#    without a job, by pam_slurm_adopt; inside an allocation (salloc) she
#    gets in and her shell is adopted into the job's extern step; the admin
#    listed in slurm_ssh_allow_users gets in without a job.
#  - Limits: a job's `ulimit -l` and `ulimit -n` are slurmd's (unlimited,
#    131072 where the machine allows), whatever the submitting shell's.
#  - /dev/shm has slurm_node_shm_size (1G), live and in fstab.
#  - The epilog ends alice's process left holding a GPU of her finished job,
#    and nothing else. SIMULATED: the testbed's GPUs have no driver, so no
#    process can open /dev/nvidiaN; the leftover holds an O_PATH descriptor
#    on it, which /proc/PID/fd shows as a real one.

node02_address=$TESTBED_SUBNET.12
as_user() {  # as_user USER CMD: ssh from this machine to node02 as USER
  local user=$1
  shift
  ssh -i "$TESTBED_STATE/ssh/id_ed25519" -o UserKnownHostsFile="$TESTBED_STATE/ssh/known_hosts" \
    -o StrictHostKeyChecking=accept-new -o BatchMode=yes -o ConnectTimeout=5 -o LogLevel=ERROR \
    "$user@$node02_address" "$@"
}
# alice (UID 2001 on node01-03, the testbed's key) was made by slurm_test.sh
# before the first deploy.
since=$(tb ssh node02 "date '+%F %T'")
said=$(as_user alice true 2>&1)
refused=$?
said+=$(tb ssh node02 "journalctl --since '$since' -o cat")
check "alice, without a job on node02, is refused SSH there (ssh exit $refused)" test "$refused" -ne 0
check "by pam_slurm_adopt (its message, to her or in node02's journal)" \
  grep -q 'Access denied by pam_slurm_adopt: you have no active jobs on this node' <<<"$said"
check "admin (slurm_ssh_allow_users) reaches node02 without a job" as_user admin true

granted=$(on01 "cd /tmp && runuser -u alice -- salloc --no-shell -N1 -w node02 -t 5" 2>&1)
alloc=$(grep -o 'Granted job allocation [0-9]*' <<<"$granted" | awk '{print $4}')
check "alice gets an allocation on node02 (salloc: ${granted//$'\n'/ })" test -n "$alloc"
inside=$(as_user alice 'cat /proc/self/cgroup; echo "memlock=$(ulimit -l)"' 2>&1)
check "inside the allocation alice reaches node02 by SSH" grep -q '^memlock=' <<<"$inside"
check "and her shell joined job $alloc's extern step ($(grep -m1 -o '/job_[^ ]*' <<<"$inside"))" \
  grep -q "/job_${alloc}/step_extern" <<<"$inside"
on01 "scancel $alloc"

# Jobs take memlock and nofile from slurmd: the submitting shell lowers its
# own, the job must still show slurmd's. slurmd's are what its unit asks
# for (unlimited, 131072) where the machine allows it. LIMITED here: nodes
# have no CAP_SYS_RESOURCE and inherit the hard limits of the machine that
# runs the testbed, so where those are lower, slurmd (systemd clamps) and
# SSH sessions (pam_limits) get the machine's, and `unlimited` is reported
# as not shown rather than passed.
check "slurmd's unit asks for memlock unlimited and nofile 131072" \
  test "$(tb ssh node02 systemctl show -p LimitMEMLOCK -p LimitNOFILE slurmd | sort | paste -sd' ')" = "LimitMEMLOCK=infinity LimitNOFILE=131072"
slurmd_limits=$(tb ssh node02 'awk '\''/^Max locked memory/ { l = $4 } /^Max open files/ { n = $4 } END { print (l == "unlimited" ? l : l / 1024), n }'\'' /proc/$(pidof slurmd)/limits')
limits=$(on01 "cd /tmp && runuser -u alice -- sh -c 'ulimit -l 64; ulimit -n 512; srun -w node02 sh -c \"ulimit -l; ulimit -n\"'" | paste -sd' ')
check "a job's memlock and nofile are slurmd's ($slurmd_limits), not the submitting shell's (64 512): $limits" \
  test "$limits" = "$slurmd_limits"
session_memlock=$(sed -n 's/^memlock=//p' <<<"$inside")
if [ "${slurmd_limits% *}" = unlimited ]; then
  check "ulimit -l in a job prints unlimited" test "${limits% *}" = unlimited
  check "and in alice's SSH session inside her job (limits.d)" test "$session_memlock" = unlimited
else
  echo "LIMITED - ulimit -l unlimited in a job and an SSH session not shown: this machine's hard memlock limit is $(ulimit -Hl) kB and the nodes may not raise it (slurmd got ${slurmd_limits% *}, the session $session_memlock)"
fi

shm=$(tb ssh node02 "stat -f -c '%b*%S' /dev/shm")
check "/dev/shm on node02 has 1G ($shm bytes)" test "$((shm))" = $((1 << 30))
check "and its fstab entry says so" tb ssh node02 "grep -qx 'tmpfs /dev/shm tmpfs rw,nosuid,nodev,size=1G 0 0' /etc/fstab"

# Three processes on node02, started outside any job: alice's on
# /dev/nvidia0 (the leftover), alice's on no GPU, admin's on /dev/nvidia0.
tb ssh node02 'cat >/tmp/hold-device && chmod 0755 /tmp/hold-device' <<'PY'
#!/usr/bin/python3
import os, sys, time
fd = os.open(sys.argv[1], os.O_PATH)
open("/tmp/hold-" + sys.argv[2] + ".pid", "w").write(str(os.getpid()))
time.sleep(600)
PY
for holder in "alice /dev/nvidia0 leftover" "alice /dev/null other" "admin /dev/nvidia0 admin"; do
  set -- $holder
  tb ssh node02 "rm -f /tmp/hold-$3.pid; setsid -f runuser -u $1 -- /tmp/hold-device $2 $3 </dev/null >/dev/null 2>&1"
done
held() { tb ssh node02 "p=\$(cat /tmp/hold-$1.pid 2>/dev/null) && kill -0 \$p 2>/dev/null"; }
for i in $(seq 50); do held leftover && held other && held admin && break; sleep 0.1; done
check "the leftover holds /dev/nvidia0 as node02's /proc shows it" \
  tb ssh node02 'readlink /proc/$(cat /tmp/hold-leftover.pid)/fd/* | grep -qx /dev/nvidia0'
on01 "cd /tmp && runuser -u alice -- srun -w node02 --gres=gpu:2 true"
for i in $(seq 40); do held leftover || break; sleep 0.25; done
held leftover
leftover_alive=$?
check "after alice's job on both GPUs, the epilog ended her leftover on /dev/nvidia0" test "$leftover_alive" -ne 0
check "it left her process without a GPU alone" held other
check "and admin's process on /dev/nvidia0" held admin
check "and logged what it ended" tb ssh node02 "journalctl -t clusterctl-epilog -o cat | grep -q 'SIGTERM to pid .* left holding /dev/nvidia0'"
tb ssh node02 'for t in leftover other admin; do kill "$(cat /tmp/hold-$t.pid)" 2>/dev/null; done; true'
