# Sourced by gpu_test.sh after its rolling upgrade (issue 50: every GPU role
# planned on the testbed). Uses its testbed, WORK, inventory and deploy.
#   dcgm-exporter is gated like DCGM: the first deploy installs it with the
#   driver (the testbed's SIMULATED exporter package, a real service and
#   drop-in) and the monitoring role its target on node01. The simulated
#   driver gives the facts a real one gives (version, open modules,
#   DMA-BUF), marked simulated: once they are gathered again after the
#   driver's reboot (`clusterctl facts`), the next deploy plans gpudirect
#   (DMA-BUF: nothing to load, the other methods' modules checked unloaded
#   for real) and changes nothing. Prometheus scrapes every exporter: up.
PROMETHEUS_URL="http://$TESTBED_SUBNET.11:9090"

# step_statuses FILE HOST ROLE: "step=status" of the host's steps of ROLE, sorted.
step_statuses() {
  python3 -c 'import json,sys
out=set()
for line in open(sys.argv[1]):
    try: e=json.loads(line)
    except ValueError: continue
    if e.get("event")=="step" and e.get("host")==sys.argv[2] and e.get("step","").startswith(sys.argv[3]+"/"):
        out.add(e["step"]+"="+e.get("status",""))
print(",".join(sorted(out)))' "$1" "$2" "$3"
}

# fact_line NODE: the facts of the driver, as "version simulated modules recommended".
fact_line() {
  python3 -c 'import json,sys
f=json.load(open(sys.argv[1]))["hosts"][sys.argv[2]]["facts"]
print(f["nvidia_driver"], f["nvidia"]["simulated"], f["gpudirect"]["kernel_modules"], f["gpudirect"]["recommended"])' \
    "$WORK/gpu-facts.json" "$1"
}

# dcgm_targets_up NODE...: Prometheus's dcgm job has each node's target up (waits up to 30 s).
dcgm_targets_up() {
  local _
  for _ in $(seq 30); do
    curl -s --noproxy '*' "$PROMETHEUS_URL/api/v1/targets?state=active" >"$WORK/targets.json" 2>/dev/null &&
      python3 -c 'import json,sys
up={t["labels"].get("node") for t in json.load(open(sys.argv[1]))["data"]["activeTargets"]
    if t["labels"].get("job")=="dcgm" and t["health"]=="up"}
sys.exit(0 if set(sys.argv[2:]) <= up else 1)' "$WORK/targets.json" "$@" && return 0
    sleep 1
  done
  return 1
}

# gpu_facts_checks: the facts gathered again after the driver's reboot.
gpu_facts_checks() {
  local node started
  started=$(date +%s)
  "$CLUSTERCTL" facts --json "$WORK/inventory.yaml" >"$WORK/gpu-facts.json" 2>"$WORK/gpu-facts.err"
  echo "# facts gathered again: $(seconds_since "$started") s"
  for node in node02 node03 node04; do
    check "$node: the facts show the SIMULATED driver as a real one's, marked (got '$(fact_line "$node")')" \
      test "$(fact_line "$node")" = "550.144.03 True open dmabuf"
  done
}

# gpu_roles_checks DEPLOY: gpudirect in the deploy DEPLOY (its --json events),
# then the exporters and their targets.
gpu_roles_checks() {
  local started node statuses
  started=$(date +%s)
  for node in node02 node03 node04; do
    statuses=$(step_statuses "$WORK/$1.json" "$node" gpudirect)
    check "$node: gpudirect deployed by DMA-BUF, the other methods' modules checked unloaded ($statuses)" sh -c "
      echo '$statuses' | grep -Eq 'gpudirect/nvidia_peermem unloaded=(ok|changed)' &&
      echo '$statuses' | grep -Eq 'gpudirect/legacy module unloaded=(ok|changed)' &&
      ! echo '$statuses' | grep -Eq 'gpudirect/nvidia_peermem loaded at boot|=failed'"
    check "$node runs the SIMULATED DCGM exporter (deployed with the driver), its metrics labelled simulated" sh -c "
      $TESTBED exec $node systemctl is-active --quiet nvidia-dcgm-exporter &&
      curl -s --noproxy '*' http://$TESTBED_SUBNET.1${node#node0}:9400/metrics | grep -q 'simulated=\"true\"'"
  done
  check "Prometheus on node01 scrapes the DCGM exporter of node02, node03 and node04: up" dcgm_targets_up node02 node03 node04 ||
    cat "$WORK/targets.json"
  echo "# exporters and targets checked: $(seconds_since "$started") s"
}

# --- MIG (issue 50): a layout on node03 --------------------------------------
# node03 gets nvidia_mig_layout (group mig) through the inventory; the
# SIMULATED nvidia-smi keeps its MIG state and logs each changing call
# (/var/log/nvidia-smi-simulated.log); its /dev/nvidia-caps devices and
# mig-minors are SIMULATED (major 511: opening one gives ENXIO where the
# job's cgroup allows it, EPERM where it does not). The role, Slurm's typed
# MIG GRES (Debian's Slurm has no NVML: gres.conf includes node03's
# MultipleFiles lines), the drain and resume and the jobs' cgroups are real.

# mig_sequence SINCE: node03's drain, the SIMULATED nvidia-smi's changing
# calls, the MIG gres file's write and the resume, since SINCE (slurmctld.log's
# time format), in time order: "drain apply ... gres resume" (one apply per
# changing call) when each happened once and in that order.
mig_sequence() {
  {
    tb exec node01 cat /var/log/slurm/slurmctld.log |
      sed -n 's/^\[\([^]]*\)\].*update_node: node node03 reason set to: clusterctl-maintenance: MIG layout change.*/\1 drain/p;
              s/^\[\([^]]*\)\].*update_node: node node03 state set to IDLE.*/\1 resume/p'
    tb exec node03 cat /var/log/nvidia-smi-simulated.log 2>/dev/null | awk '{print $1, "apply"}'
    echo "$(tb exec node03 date -r /etc/slurm/gres-mig.conf '+%Y-%m-%dT%H:%M:%S.%3N') gres"
  } | awk -v since="$1" '$1 >= since' | sort | awk '{print $2}' | paste -sd' '
}

# mig_job PROFILE: one job on node03 with --gres=gpu:PROFILE:1: its
# CUDA_VISIBLE_DEVICES, then per MIG capability file gres-mig.conf names
# whether the job may open it (ENXIO: allowed, the SIMULATED device has no
# driver) or not (EPERM: its cgroup denies it), as "allowed=N denied=M".
mig_job() {
  local files
  files=$(tb exec node03 sed -n 's/.*MultipleFiles=[^,]*,//p' /etc/slurm/gres-mig.conf | tr ',' ' ')
  tb exec node01 srun -w node03 --gres="gpu:$1:1" sh -c '
    printf "CUDA_VISIBLE_DEVICES=%s " "$CUDA_VISIBLE_DEVICES"
    a=0; d=0
    for f in "$@"; do
      case $(head -c1 "$f" 2>&1) in
        *"No such device or address"*) a=$((a + 1)) ;;
        *"Operation not permitted"*) d=$((d + 1)) ;;
      esac
    done
    echo "allowed=$a denied=$d"' sh $files 2>&1
}

# mig_converged NAME RC SINCE APPLIES PROFILE COUNT DENIED: the deploy NAME
# (exit RC) converged node03 as one drain, APPLIES changing nvidia-smi
# calls, its gres file and one resume since SINCE; Slurm shows COUNT
# PROFILE devices there, node03 is back, and a job given one gets it alone
# (its two capability files open, the node's DENIED others not).
mig_converged() {
  local name=$1 rc=$2 since=$3 applies=$4 profile=$5 count=$6 denied=$7 devices job expected
  check "MIG ($name): the deploy converges" test "$rc" -eq 0 || { step_error "$WORK/$name.json" node03; tail -20 "$WORK/$name.err"; }
  expected="drain$(printf ' apply%.0s' $(seq "$applies")) gres resume"
  check "MIG ($name): node03 drained, changed ($applies nvidia-smi calls), its gres file written, resumed, in that order, each once ($(mig_sequence "$since"))" \
    test "$(mig_sequence "$since")" = "$expected"
  check "MIG ($name): gres.conf includes node03's MIG devices, $count MultipleFiles lines typed $profile" sh -c "
    $TESTBED exec node03 grep -qx 'Include /etc/slurm/gres-mig.conf' /etc/slurm/gres.conf &&
    test \$($TESTBED exec node03 grep -c '^NodeName=node03 Name=gpu Type=$profile MultipleFiles=/dev/nvidia[01],/dev/nvidia-caps/nvidia-cap[0-9]*,/dev/nvidia-caps/nvidia-cap[0-9]*$' /etc/slurm/gres-mig.conf) = $count"
  devices=$(tb exec node01 sinfo -h -n node03 -o %G)
  check "MIG ($name): Slurm shows node03's typed MIG GRES (got $devices)" test "$devices" = "gpu:$profile:$count"
  check "MIG ($name): node03 is back in Slurm" wait_idle node03
  job=$(mig_job "$profile")
  check "MIG ($name): srun --gres=gpu:$profile:1 gets one MIG device: CUDA_VISIBLE_DEVICES set by Slurm, its two capability files open to it, the other $denied denied (got $job)" \
    test "$job" = "CUDA_VISIBLE_DEVICES=0 allowed=2 denied=$denied"
}

mig_checks() {
  local started since rc
  started=$(date +%s)
  MIG_LAYOUT="[3g.40gb, 3g.40gb]"
  inventory "$V2"
  "$CLUSTERCTL" plan "$WORK/inventory.yaml" --limit node03 >"$WORK/mig-plan.out" 2>&1
  check "MIG: plan lists node03's layout change GPU by GPU, and its typed MIG GRES in slurm.conf" sh -c "
    grep -q 'nvidia-mig/layout: GPU 0: MIG mode off -> on, instances 3g.40gb, 3g.40gb; GPU 1: MIG mode off -> on' '$WORK/mig-plan.out' &&
    grep -q '^ *+NodeName=node03 .* Gres=gpu:3g.40gb:4 ' '$WORK/mig-plan.out'" ||
    sed -n 1,40p "$WORK/mig-plan.out"
  since=$(date '+%Y-%m-%dT%H:%M:%S')
  deploy mig
  rc=$?
  # per GPU: -mig 1, -cgi 9,9 -C
  mig_converged mig "$rc" "$since" 4 3g.40gb 4 6
  check "MIG: node03's GPUs hold 3g.40gb x2 each (SIMULATED nvidia-smi mig -lgi)" \
    test "$(tb exec node03 nvidia-smi mig -lgi 2>/dev/null | grep -c 'MIG 3g.40gb')" = 4

  deploy mig-again
  check "MIG: a second deploy changes nothing (got: $(changed_steps "$WORK/mig-again.json" node03))" \
    test -z "$(for n in node01 node02 node03 node04; do changed_steps "$WORK/mig-again.json" $n; done | tr -d '\n')"

  MIG_LAYOUT="[2g.20gb, 2g.20gb, 2g.20gb]"
  inventory "$V2"
  since=$(date '+%Y-%m-%dT%H:%M:%S')
  deploy mig-change
  rc=$?
  # per GPU: -dci, -dgi, -cgi 14,14,14 -C
  mig_converged mig-change "$rc" "$since" 6 2g.20gb 6 10
  echo "# MIG on node03 (plan, 3 deploys, jobs): $(seconds_since "$started") s"
}
