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
