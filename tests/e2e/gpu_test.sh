#!/usr/bin/env bash
# End-to-end test of the GPU roles (issue: "GPU nodes: NVIDIA driver, CUDA
# toolkit, fabric manager and DCGM, rebooting only when needed") on a
# 4-node testbed with 2 simulated GPUs and 1 HCA per compute node. The driver comes
# from the testbed's local repository (SIMULATED packages with NVIDIA's
# names, versions and dependencies), the loaded module is SIMULATED,
# derived by the testbed at each boot from what the node has installed;
# the reboots, Slurm and the packages are real.
#   1. The first deploy installs the driver on the GPU nodes only,
#      blacklists nouveau and reboots each GPU node once; the second deploy
#      changes nothing and reboots nothing.
#   2. A kernel installed without headers stops that node before its
#      driver changes or it is drained.
#   3. Raising the driver version while a job runs on node04 rolls through
#      the GPU nodes one at a time (--batch 1): each drained, upgraded,
#      rebooted exactly once, resumed; node04 waits for its job, which
#      completes; every node is back in Slurm. Alertmanager on node01
#      (issue 38): each node is silenced before its drain, for as long as
#      it is drained or down (node04's SlurmNodeDown fires, suppressed), and
#      no alert reaches the test's webhook receiver; the silences end.
#   3b. Every GPU role (gpu_roles_checks.sh): dcgm-exporter (a SIMULATED
#      exporter) came with the driver in the first deploy; with the facts
#      gathered again, gpudirect (DMA-BUF, the testbed's open modules)
#      deploys on the GPU nodes (each with one SIMULATED HCA) and changes
#      nothing; Prometheus scrapes every exporter: up.
#   3c. MIG (gpu_roles_checks.sh): a layout set on node03 in the inventory is
#      one drain, apply (the SIMULATED nvidia-smi), gres file (MultipleFiles),
#      resume; srun --gres=gpu:3g.40gb:1 gets one MIG device; a second deploy
#      changes nothing; a changed layout is again one drain/apply/resume.
#      About 20 s (measured twice on 2026-11-30: 20 s of 225 s and 219 s).
#   4. A node with NVSwitches refuses a driver version its fabric manager
#      does not have, naming both versions, before anything changes.
#   5. An air-gapped site bundle: with the apt proxy and the local
#      repository stopped, the driver is upgraded from a bundle copied from
#      the controller.
#   6. nccl-tests (gpu_nccl_tests_checks.sh): plan lists the build, deploy
#      refuses it on a GPU node, naming the SIMULATED nvcc and the missing GPU.
source "$(dirname "$0")/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-e2e-gpu-XXXXXX)
source "$E2E_ROOT/tests/e2e/alerts/alerts.sh"
trap 'stop_alert_watch_quietly; stop_alert_receiver; tb online >/dev/null 2>&1; tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
V1=550.127.05-1+simulated
V2=550.144.03-1+simulated
V3=550.163.01-1+simulated
DRIVER=nvidia-open-550  # the testbed's inventory takes the open modules (tests/testbed/lib/inventory.sh)

# inventory VERSION [EXTRA-VAR-LINES]: the testbed's inventory at a driver version.
inventory() {
  sed "s/^  nvidia_driver_version: .*/  nvidia_driver_version: $1/" "$tb_inventory" >"$WORK/inventory.yaml"
  if [ -n "${2:-}" ]; then
    python3 - "$WORK/inventory.yaml" "$2" <<'EOF'
import sys
path, extra = sys.argv[1], sys.argv[2]
text = open(path).read().replace("\nhosts:\n", "\n" + extra + "\nhosts:\n", 1)
open(path, "w").write(text)
EOF
  fi
  # Monitoring on node01, its alerts to the test's receiver (issue 38).
  add_alert_vars "$WORK/inventory.yaml"
  printf '  monitoring:\n    hosts: node01\n' >>"$WORK/inventory.yaml"
  # node03's MIG layout (3c, gpu_roles_checks.sh), once set.
  [ -z "$MIG_LAYOUT" ] || printf '  mig:\n    hosts: node03\n    vars:\n      nvidia_mig_layout: %s\n' "$MIG_LAYOUT" >>"$WORK/inventory.yaml"
}
MIG_LAYOUT=""
deploy() {  # deploy NAME [ARGS...]: deploy --json into $WORK/NAME.json, returns its exit status
  local name=$1
  shift
  "$CLUSTERCTL" deploy "$WORK/inventory.yaml" --json "$@" >"$WORK/$name.json" 2>"$WORK/$name.err"
}
boots() { local n; n=$(grep -c "status 133" "$TESTBED_STATE/nodes/$1/exits.log" 2>/dev/null); echo "${n:-0}"; }  # reboots so far
package_version() { tb exec "$1" dpkg-query -W -f '${Version}' "$2" 2>/dev/null; }
loaded() { tb exec "$1" cat /sys/module/nvidia/version 2>/dev/null; }
node_state() { tb exec node01 sinfo -h -N -n "$1" -o %T | head -n 1; }
# A node just resumed after its reboot shows idle* until its slurmd registers.
wait_idle() {
  local i
  for i in $(seq 60); do [ "$(node_state "$1")" = idle ] && return 0; sleep 1; done
  return 1
}
step_error() {  # step_error FILE HOST: the host's failed step and its error
  python3 -c 'import json,sys
for line in open(sys.argv[1]):
    try: e=json.loads(line)
    except ValueError: continue
    if e.get("event")=="step" and e.get("host")==sys.argv[2] and e.get("status")=="failed": print(e["step"], e.get("error",""), e.get("output",""))' "$1" "$2"
}

# The rollout's alerts (issue 38), from what watch_alertmanager.py sampled.
rollout_alerts_checks() {
  local n line firing
  for n in node02 node03 node04; do
    line=$(grep "^$n " "$WORK/watch.txt")
    check "$n: silenced in Alertmanager all the time its exporter was down ($line)" \
      sh -c "echo '$line' | grep -q ' silenced_while_down=True '"
    check "$n: no alert of it ever active in Alertmanager during the rollout" sh -c "echo '$line' | grep -q ' active=none '"
    check "$n: no silence left once the rollout is over" sh -c "echo '$line' | grep -q ' silenced_at_end=False$'"
    check "$n: silenced before its drain changed anything" silenced_before_drain "$n"
  done
  check "node04 (drained for its job): its SlurmNodeDown fired, suppressed by the silence" \
    sh -c "grep '^node04 ' '$WORK/watch.txt' | grep -Eq ' suppressed=([^ ]*,)?SlurmNodeDown(,[^ ]*)? '"
  firing=$(firing_received "$rollout_started" | tr '\n' ';')
  check "no alert reached the receiver during the rollout (got: ${firing:-none})" test -z "$firing"
  check "the silences clusterctl opened have all ended (expired in Alertmanager's API)" \
    python3 "$ALERTS_DIR/maintenance_samples.py" --ended "$ALERTMANAGER_URL" node02 node03 node04
}
# silenced_before_drain NODE: in the rollout's events, the note of its
# silence comes before its drain step's result, and the drain changed.
silenced_before_drain() {
  python3 - "$WORK/rollout.json" "$1" <<'EOF'
import json, sys
silenced = drained = None
for i, line in enumerate(open(sys.argv[1])):
    try: e = json.loads(line)
    except ValueError: continue
    if e.get("host") != sys.argv[2]: continue
    if e.get("event") == "note" and "silenced in Alertmanager" in e.get("message", "") and silenced is None: silenced = i
    if e.get("event") == "step" and e.get("step") == "nvidia-driver/drain" and e.get("status") == "changed": drained = i
sys.exit(0 if silenced is not None and drained is not None and silenced < drained else 1)
EOF
}

tb down >/dev/null 2>&1
tb_inventory=$(tb up 4 --gpus 2 --hcas 1 2>/dev/null) || { echo "testbed up failed"; exit 1; }
cp -r "$(dirname "$tb_inventory")/ssh" "$WORK/ssh"
start_alert_receiver
inventory "$V1"

# --- 1. first deploy, then nothing ---------------------------------------------
start=$(date +%s)
deploy first
rc=$?
echo "# first deploy: exit $rc in $(seconds_since "$start") s"
check "first deploy converges" test "$rc" -eq 0 || tail -30 "$WORK/first.err"
for node in node02 node03 node04; do
  check "$node has $DRIVER $V1 (got '$(package_version "$node" "$DRIVER")')" \
    test "$(package_version "$node" "$DRIVER")" = "$V1"
  check "$node rebooted once (got $(boots "$node"))" test "$(boots "$node")" = 1
  check "$node blacklists nouveau" tb exec "$node" grep -qx 'blacklist nouveau' /etc/modprobe.d/clusterctl-blacklist-nouveau.conf
  check "$node loads the SIMULATED nvidia 550.127.05 (got '$(loaded "$node")')" test "$(loaded "$node")" = 550.127.05
  check "$node has no nouveau loaded" tb exec "$node" test ! -e /sys/module/nouveau
  check "$node holds its driver packages" sh -c "$TESTBED exec $node apt-mark showhold | grep -qx $DRIVER"
  check "$node pins the driver" tb exec "$node" grep -q "Pin: version $V1" /etc/apt/preferences.d/clusterctl-nvidia-driver
  check "$node runs nvidia-persistenced and DCGM's host engine" \
    tb exec "$node" systemctl is-active --quiet nvidia-persistenced nvidia-dcgm
  check "$node got the DCGM exporter with DCGM (gated like it: no loaded driver at planning)" \
    sh -c "echo '$(changed_steps "$WORK/first.json" "$node")' | grep -q 'dcgm-exporter/service'"
done
check "node01 (no GPU) has no NVIDIA package" sh -c "! $TESTBED exec node01 dpkg -l 'cuda-drivers*' 'nvidia*' 2>/dev/null | grep -q '^ii'"
check "node01 did not reboot" test "$(boots node01)" = 0
check "an upgrade cannot move the driver (apt-get upgrade keeps it)" \
  sh -c "$TESTBED exec node02 apt-get -s upgrade | grep -q '$DRIVER' && exit 1 || exit 0"

deploy second
rc=$?
check "second deploy converges" test "$rc" -eq 0
check "second deploy changes nothing (got: $(for n in node02 node03 node04; do changed_steps "$WORK/second.json" $n; done | tr '\n' ' '))" \
  test -z "$(for n in node01 node02 node03 node04; do changed_steps "$WORK/second.json" $n; done | tr -d '\n')"
for node in node02 node03 node04; do
  check "second deploy: $node not rebooted" test "$(boots "$node")" = 1
done

# --- 2. a kernel without headers ---------------------------------------------
"$CLUSTERCTL" run "$WORK/inventory.yaml" --limit node04 -- \
  apt-get install -y -q linux-image-6.1.0-100-simulated >"$WORK/kernel.out" 2>&1
inventory "$V2"
deploy noheaders --limit node04
rc=$?
err=$(step_error "$WORK/noheaders.json" node04)
echo "# node04 with a kernel without headers: $err"
check "a kernel without headers fails node04's deploy" test "$rc" -ne 0
check "... at the headers check, naming the kernel" \
  sh -c "echo \"\$1\" | grep -q 'headers for the next kernel.*6.1.0-100-simulated'" sh "$err"
check "... before its driver changed (still $V1)" test "$(package_version node04 "$DRIVER")" = "$V1"
check "... and before it was drained (state $(node_state node04))" test "$(node_state node04)" = idle
check "... and without a reboot" test "$(boots node04)" = 1
"$CLUSTERCTL" run "$WORK/inventory.yaml" --limit node04 -- \
  apt-get purge -y -q linux-image-6.1.0-100-simulated >>"$WORK/kernel.out" 2>&1

# --- 3. a rolling upgrade while a job runs ------------------------------------
job=$(tb exec node01 sbatch --parsable -w node04 -t 5 --wrap 'sleep 60')
echo "# job $job on node04"
for i in $(seq 30); do [ "$(tb exec node01 squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 1; done
"$CLUSTERCTL" plan "$WORK/inventory.yaml" >"$WORK/plan.out" 2>&1
check "plan shows drain, driver, reboot and resume with the reason" sh -c "
  grep -q 'nvidia-driver/drain' '$WORK/plan.out' &&
  grep -q '$DRIVER $V1 -> $V2' '$WORK/plan.out' &&
  grep -q 'nvidia-driver/reboot.*reboot after' '$WORK/plan.out' &&
  grep -q 'nvidia-driver/resume' '$WORK/plan.out'" || sed -n 1,60p "$WORK/plan.out"
start_alert_watch node02 node03 node04
rollout_started=$(date +%s.%N)
start=$(date +%s)
deploy rollout --batch 1
rc=$?
echo "# rollout: exit $rc in $(seconds_since "$start") s"
sleep $((ALERT_FOR + 2 * ALERT_INTERVAL + ALERT_GROUP_WAIT))  # what a late alert would need to arrive
stop_alert_watch $((ALERT_FOR + 2 * ALERT_INTERVAL)) node02 node03 node04
check "the rollout converges" test "$rc" -eq 0 || tail -30 "$WORK/rollout.err"
for node in node02 node03 node04; do
  check "$node upgraded to $V2" test "$(package_version "$node" "$DRIVER")" = "$V2"
  check "$node rebooted exactly once more (got $(boots "$node"))" test "$(boots "$node")" = 2
  check "$node loads 550.144.03 (got '$(loaded "$node")')" test "$(loaded "$node")" = 550.144.03
  check "$node is back in Slurm" wait_idle "$node"
done
check "the job on node04 completed (sacct: $(tb exec node01 sacct -n -X -j "$job" -o State | tr -d ' '))" \
  test "$(tb exec node01 sacct -n -X -j "$job" -o State | tr -d ' ')" = COMPLETED
python3 - "$WORK/rollout.json" <<'EOF' >"$WORK/overlap.txt"
import json, sys
running, overlap = set(), False
for line in open(sys.argv[1]):
    try: e = json.loads(line)
    except ValueError: continue
    h = e.get("host")
    if h not in ("node02", "node03", "node04"): continue
    if e.get("event") == "host_started":
        overlap = overlap or bool(running)
        running.add(h)
    elif e.get("event") == "host_finished":
        running.discard(h)
print("overlap" if overlap else "one at a time")
EOF
check "the GPU nodes were upgraded one at a time ($(cat "$WORK/overlap.txt"))" test "$(cat "$WORK/overlap.txt")" = "one at a time"
rollout_alerts_checks
# --- 3b. every GPU role (issue 50): gpudirect, dcgm-exporter, scraped -----------
source "$(dirname "$0")/gpu_roles_checks.sh"
gpu_facts_checks
deploy after-rollout
check "the deploy after the rollout, with gpudirect now planned, changes nothing" \
  test -z "$(for n in node01 node02 node03 node04; do changed_steps "$WORK/after-rollout.json" $n; done | tr -d '\n')"
gpu_roles_checks after-rollout
# --- 3c. MIG on node03 (issue 50, gpu_roles_checks.sh) ------------------------
mig_checks

# --- 4. the fabric manager's version rule --------------------------------------
tb_inventory=$(tb up 5 --gpus 2 --hcas 1 --nvswitches 4 2>/dev/null) || { echo "testbed up 5 failed"; exit 1; }
inventory "$V3"
deploy mismatch --limit node05
rc=$?
err=$(step_error "$WORK/mismatch.json" node05)
echo "# node05 (NVSwitches) at $V3: $err"
check "a driver without its fabric manager version fails node05" test "$rc" -ne 0
check "... naming the fabric manager's versions and the driver's" sh -c "
  echo \"\$1\" | grep -q 'nvidia-fabricmanager-550 is available at .*, the driver is $V3' &&
  echo \"\$1\" | grep -qF '$V1' && echo \"\$1\" | grep -qF '$V2'" sh "$err"
check "... before any driver package was installed" sh -c "! $TESTBED exec node05 dpkg -l 'cuda-drivers*' 'nvidia-open*' 'nvidia-kernel*' 2>/dev/null | grep -q '^ii'"
check "... and without a reboot" test "$(boots node05)" = 0

# --- 5. an air-gapped site bundle ---------------------------------------------
# The bundle an air-gapped site makes: the .debs of one release and their
# Packages index (as dpkg-scanpackages writes it), in one tar.
source "$E2E_ROOT/tests/testbed/lib/ofed_bundle.sh"
mkdir -p "$WORK/bundle"
for package in "$DRIVER" nvidia-kernel-open-dkms nvidia-smi libcuda1 nvidia-persistenced; do
  cp "$TESTBED_STATE/repo/packages/${package}_${V3}_amd64.deb" "$WORK/bundle/"
done
write_packages_index "$WORK/bundle"
tar -cf "$WORK/nvidia-550.tar" -C "$WORK/bundle" .
inventory "$V3" "  nvidia_driver_bundle: nvidia-550.tar"
sed -i '/^  nvidia_driver_repository: /d' "$WORK/inventory.yaml"
tb offline >/dev/null 2>&1
deploy airgapped --limit node02
rc=$?
tb online >/dev/null 2>&1
check "the site bundle deploys with no network but the controller" test "$rc" -eq 0 || { step_error "$WORK/airgapped.json" node02; tail -20 "$WORK/airgapped.err"; }
check "node02 upgraded to $V3 from the bundle" test "$(package_version node02 "$DRIVER")" = "$V3"
check "node02 loads 550.163.01 after its one reboot (got '$(loaded node02)', reboots $(boots node02))" \
  sh -c "test '$(loaded node02)' = 550.163.01 && test '$(boots node02)' = 3"
check "node02's only NVIDIA source is the bundle" sh -c "
  $TESTBED exec node02 test -f /etc/apt/sources.list.d/clusterctl-nvidia-driver-bundle.list &&
  $TESTBED exec node02 test ! -e /etc/apt/sources.list.d/clusterctl-nvidia-driver.list"
check "node02 is back in Slurm" wait_idle node02

# --- 6. nccl-tests for validate -------------------------------------------------
source "$(dirname "$0")/gpu_nccl_tests_checks.sh"
nccl_tests_checks

finish
