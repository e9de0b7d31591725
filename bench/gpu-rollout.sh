#!/usr/bin/env bash
# The GPU driver's rolling upgrade on a testbed of 4 nodes (node02..node04
# with 2 simulated GPUs each; the driver from the testbed's repository of
# SIMULATED NVIDIA packages, real apt, real Slurm, real reboots):
#   1. benchmark: one uninterrupted rollout (--batch 1) from one driver
#      version to the other while a job runs on node04; per batch (node):
#      its wall time and what it spent draining, installing, rebooting and
#      resuming, and the controller's share: the CPU time clusterctl used
#      over the rollout's wall time
#   2. TRIALS kill -9s of the controller at random moments of the same
#      rollout (back and forth between the versions, a job on node04 each
#      time), each followed by one resuming deploy; a trial passes when the
#      resume exits 0, every GPU node has and loads the new version, each
#      rebooted exactly once in that trial (no reboot lost or repeated),
#      the job completed, every node is idle in Slurm, and the next deploy
#      changes nothing.
# Its own testbed (state, names and subnet apart from a developer's); every
# command bounded in time.
#
#   sudo bench/gpu-rollout.sh [TRIALS]      (default 10)
set -uo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-10}
export TESTBED_STATE=/var/lib/clusterctl-testbed-gpu TESTBED_PREFIX=ctg TESTBED_SUBNET=10.213.81
TB=$(realpath tests/testbed/testbed)
CLUSTERCTL=$(realpath build/clusterctl)
WORK=$(mktemp -d /tmp/clusterctl-gpu-rollout-XXXXXX)
trap '$TB down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT
[ "$(id -u)" -eq 0 ] || { echo "needs root (the testbed)"; exit 77; }
VERSIONS=(550.127.05-1+simulated 550.144.03-1+simulated)
GPU_NODES=(node02 node03 node04)

now_ms() { echo $(($(date +%s%N) / 1000000)); }
inventory() { sed "s/^  nvidia_driver_version: .*/  nvidia_driver_version: $1/" "$INV" >"$TESTBED_STATE/rollout.yaml"; }
boots() { local n; n=$(grep -c "status 133" "$TESTBED_STATE/nodes/$1/exits.log" 2>/dev/null); echo "${n:-0}"; }
all_boots() { local n; for n in "${GPU_NODES[@]}"; do boots "$n"; done | tr '\n' ' '; }
version_of() { $TB exec "$1" dpkg-query -W -f '${Version}' nvidia-open-550 2>/dev/null; }  # the testbed's open modules
loaded() { $TB exec "$1" cat /sys/module/nvidia/version 2>/dev/null; }
idle_nodes() { $TB exec node01 sinfo -h -N -o %T 2>/dev/null | grep -cx idle; }
wait_idle() { local i; for i in $(seq 60); do [ "$(idle_nodes)" = 3 ] && return 0; sleep 1; done; return 1; }
start_job() {  # a 20 s job on node04; prints its id
  local job i
  job=$($TB exec node01 sbatch --parsable -w node04 -t 5 --wrap 'sleep 20')
  for i in $(seq 30); do [ "$($TB exec node01 squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 1; done
  echo "$job"
}
job_state() { $TB exec node01 sacct -n -X -j "$1" -o State | tr -d ' '; }
# run_stamped CPU_FILE COMMAND...: runs COMMAND, stamps each line it prints
# (--json events) with the controller's clock (ms), and writes the CPU time
# it used ("user system" seconds) to CPU_FILE.
run_stamped() { python3 -c 'import resource, subprocess, sys, time
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, text=True)
for line in child.stdout: sys.stdout.write("%d %s" % (time.time() * 1000, line)); sys.stdout.flush()
child.wait()
used = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%f %f\n" % (used.ru_utime, used.ru_stime))' "$@"; }

$TB down >/dev/null 2>&1
INV=$($TB up 4 --gpus 2 2>/dev/null) || { echo "testbed up failed"; exit 1; }
inventory "${VERSIONS[0]}"
timeout 900 "$CLUSTERCTL" deploy "$TESTBED_STATE/rollout.yaml" >"$WORK/setup.out" 2>&1 ||
  { echo "setup deploy failed"; tail -20 "$WORK/setup.out"; exit 1; }
wait_idle

# --- 1. benchmark ------------------------------------------------------------
inventory "${VERSIONS[1]}"
job=$(start_job)
t0=$(now_ms)
run_stamped "$WORK/cpu" timeout 900 "$CLUSTERCTL" deploy "$TESTBED_STATE/rollout.yaml" --batch 1 --json >"$WORK/bench.json"
wall=$(( $(now_ms) - t0 ))
run=$(python3 -c 'import json,sys
for line in open(sys.argv[1]):
    e = json.loads(line.partition(" ")[2])
    if e.get("event") == "run_started": print(e["run"]); break' "$WORK/bench.json")
"$CLUSTERCTL" history "$TESTBED_STATE/rollout.yaml" --run "$run" --json >"$WORK/history.json"
python3 - "$WORK/bench.json" "$WORK/history.json" "$WORK/cpu" "$wall" "$(job_state "$job")" <<'EOF'
import json, sys
events, history, cpu, wall, job = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().split(), int(sys.argv[4]), sys.argv[5]
hosts = {}
for line in open(events):
    e = json.loads(line.partition(" ")[2])
    if e.get("event") == "host_finished" and e.get("host") in ("node02", "node03", "node04"):
        hosts[e["host"]] = {"wall": e["duration_ms"], "drain": 0, "packages": 0, "reboot": 0, "resume": 0}
phase_of = {"drain": "drain", "driver (nvidia)": "packages", "reboot": "reboot", "resume": "resume"}
for step in json.load(open(history))["steps"]:
    if step["host"] in hosts and step["role"] == "nvidia-driver" and step["step"] in phase_of:
        hosts[step["host"]][phase_of[step["step"]]] += step["finished_at"] - step["started_at"]
print("rollout of the driver over 3 GPU nodes, --batch 1, a 20 s job on node04: %.1f s wall, job %s" % (wall / 1000, job))
print("%-7s %8s %8s %9s %8s %8s %8s" % ("batch", "wall s", "drain s", "packages", "reboot s", "resume s", "other s"))
for h in sorted(hosts):
    r = hosts[h]
    other = r["wall"] - r["drain"] - r["packages"] - r["reboot"] - r["resume"]
    print("%-7s %8.1f %8.1f %9.1f %8.1f %8.1f %8.1f" % (h, r["wall"] / 1000, r["drain"] / 1000, r["packages"] / 1000,
          r["reboot"] / 1000, r["resume"] / 1000, other / 1000))
user, system = float(cpu[0]), float(cpu[1])
print("controller CPU: %.2f s user + %.2f s system = %.1f%% of the rollout's wall time" %
      (user, system, 100 * (user + system) / (wall / 1000)))
EOF
wait_idle
reference=$wall

# --- 2. kill -9 trials ---------------------------------------------------------
passed=0
current=1
for trial in $(seq "$TRIALS"); do
  target=$(( 1 - current ))
  inventory "${VERSIONS[$target]}"
  before=($(all_boots))
  job=$(start_job)
  delay=$(( reference * (5 + RANDOM % 91) / 100 ))
  "$CLUSTERCTL" deploy "$TESTBED_STATE/rollout.yaml" --batch 1 >"$WORK/killed.out" 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  timeout 900 "$CLUSTERCTL" deploy "$TESTBED_STATE/rollout.yaml" --batch 1 >"$WORK/resume.out" 2>&1
  rc=$?
  for i in $(seq 60); do [ "$(job_state "$job")" = COMPLETED ] && break; sleep 1; done
  wait_idle
  after=($(all_boots))
  upstream=${VERSIONS[$target]%%-*}
  why=""
  [ "$rc" -eq 0 ] || why+=" resume exit $rc;"
  for i in 0 1 2; do
    node=${GPU_NODES[$i]}
    [ "$(version_of "$node")" = "${VERSIONS[$target]}" ] || why+=" $node has $(version_of "$node");"
    [ "$(loaded "$node")" = "$upstream" ] || why+=" $node loads $(loaded "$node");"
    [ $(( after[i] - before[i] )) -eq 1 ] || why+=" $node rebooted $(( after[i] - before[i] )) times;"
  done
  [ "$(job_state "$job")" = COMPLETED ] || why+=" job $job $(job_state "$job");"
  [ "$(idle_nodes)" = 3 ] || why+=" $(idle_nodes) of 3 nodes idle;"
  changed=$(timeout 600 "$CLUSTERCTL" deploy "$TESTBED_STATE/rollout.yaml" --json 2>/dev/null |
    grep '"event":"recap"' | python3 -c 'import json,sys; print(json.load(sys.stdin)["changed"])' 2>/dev/null)
  [ "$changed" = 0 ] || why+=" next deploy changed ${changed:-?};"
  if [ -z "$why" ]; then
    passed=$((passed + 1))
    echo "trial $trial: killed after $delay ms (of ~$reference): ok"
  else
    echo "trial $trial: killed after $delay ms (of ~$reference):$why"
    tail -15 "$WORK/resume.out" | sed 's/^/    /'
  fi
  current=$target
done
echo "kill -9 trials: $passed of $TRIALS resumed to the same end, each GPU node rebooted exactly once"
[ "$passed" = "$TRIALS" ]
