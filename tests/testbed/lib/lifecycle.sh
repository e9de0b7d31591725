# up, down, status: the testbed as a whole.

ensure_ssh_key() {
  mkdir -p "$TESTBED_STATE/ssh"
  chmod 700 "$TESTBED_STATE/ssh"
  [ -f "$(ssh_key)" ] || ssh-keygen -q -t ed25519 -N '' -C "clusterctl-testbed" -f "$(ssh_key)"
  touch "$TESTBED_STATE/ssh/known_hosts"
}

# A node directory without a live supervisor that was not powered off on
# purpose is what a crashed run (or a host reboot) leaves behind.
crashed_nodes() {
  local node
  for node in $(existing_nodes); do
    if ! node_running "$node" && [ ! -e "$(node_dir "$node")/stopped" ] && [ ! -e "$(node_dir "$node")/hung" ]; then
      echo "$node"
    fi
  done
}

# up --arm64-nodes A: the last A of the N nodes are arm64 (aarch64), run
# under qemu-user (emulation.sh). Not with --gpus: the testbed's SIMULATED
# NVIDIA packages and kernel are built for the machine's architecture only.
check_arm64_nodes() {
  local arm64=$1 count=$2 gpus=$3
  [[ $arm64 =~ ^[0-9]+$ ]] && [ "$arm64" -le "$count" ] || die "--arm64-nodes must be 0-$count (the last nodes of the $count)"
  [ "$arm64" -eq 0 ] || [ "$gpus" -eq 0 ] ||
    die "--arm64-nodes with --gpus: the SIMULATED NVIDIA packages are built for $(native_arch) only"
  [ "$arm64" -eq 0 ] || [ "$(native_arch)" != arm64 ] || die "--arm64-nodes: this machine is arm64 already"
}

cmd_up() {
  local count="" gpus=0 hcas=0 services=0 nvswitches=0 gpu_model=h100 backup=0 outside=0 release="" bmc=0 arm64=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --release) release=${2:?--release needs bookworm or trixie}; shift 2 ;;
      --gpus) gpus=${2:?--gpus needs a number}; shift 2 ;;
      --gpu-model) gpu_model=${2:?--gpu-model needs a model}; shift 2 ;;
      --hcas) hcas=${2:?--hcas needs a number}; shift 2 ;;
      --nvswitches) nvswitches=${2:?--nvswitches needs a number}; shift 2 ;;
      --services) services=1; shift ;;
      --backup-controller) backup=1; shift ;;
      --outside) outside=1; shift ;;
      --bmc) bmc=1; shift ;;
      --arm64-nodes) arm64=${2:?--arm64-nodes needs a number}; shift 2 ;;
      -*) die "unknown option $1" ;;
      *) count=$1; shift ;;
    esac
  done
  [[ $count =~ ^[0-9]+$ ]] && [ "$count" -ge 1 ] && [ "$count" -le $MAX_NODES ] ||
    die "usage: testbed up N [--release bookworm|trixie] [--gpus K [--gpu-model MODEL]] [--hcas M] [--nvswitches S] [--services] [--backup-controller] [--outside] [--bmc] [--arm64-nodes A] (1 <= N <= $MAX_NODES)"
  check_arm64_nodes "$arm64" "$count" "$gpus"
  [[ $gpus =~ ^[0-9]+$ ]] && [ "$gpus" -le 16 ] || die "--gpus must be 0-16"
  [[ $hcas =~ ^[0-9]+$ ]] && [ "$hcas" -le 8 ] || die "--hcas must be 0-8"
  [[ $nvswitches =~ ^[0-9]+$ ]] && [ "$nvswitches" -le 4 ] || die "--nvswitches must be 0-4"
  [ -n "${GPU_MODELS[$gpu_model]:-}" ] || die "--gpu-model must be one of: ${!GPU_MODELS[*]}"
  local started
  started=$(now_ms)

  local crashed
  crashed=$(crashed_nodes)
  if [ -n "$crashed" ]; then
    log "clearing what a previous run left (nodes without a running container: $(echo $crashed))"
    teardown
  fi
  use_release "$release"
  ensure_bridge
  ensure_proxy
  ensure_base
  [ "$arm64" -eq 0 ] || ensure_base arm64
  ensure_ssh_key
  echo "$TESTBED_SUITE" >"$TESTBED_STATE/release"
  if [ "$services" -eq 1 ]; then touch "$TESTBED_STATE/services"; fi
  if [ "$backup" -eq 1 ]; then ensure_shared_dir; fi
  if [ "$gpus" -gt 0 ]; then touch "$TESTBED_STATE/gpus"; fi
  if [ "$bmc" -eq 1 ]; then enable_bmcs; fi
  if [ -e "$TESTBED_STATE/services" ] || [ -e "$TESTBED_STATE/gpus" ]; then ensure_local_repo; fi

  local i node
  local -a new=()
  for ((i = 1; i <= count; i++)); do
    node=$(node_name "$i")
    if [ -d "$(node_dir "$node")" ]; then continue; fi
    local node_gpus=$gpus node_hcas=$hcas node_nvswitches=$nvswitches
    if [ "$i" -eq 1 ] && [ "$count" -gt 1 ]; then node_gpus=0 node_nvswitches=0; fi  # node01 is the head node: fabric, no GPUs
    local node_arch
    node_arch=$(native_arch)
    [ "$i" -le $((count - arm64)) ] || node_arch=arm64  # --arm64-nodes A: the last A nodes
    prepare_node "$node" "$i" "$node_gpus" "$node_hcas" "$node_nvswitches" "$gpu_model" "$outside" "$node_arch"
    start_supervisor "$node"
    new+=("$node")
  done
  if [ ${#new[@]} -gt 0 ]; then
    wait_ready "${new[@]}"
    log "booted ${new[*]} in $(( ($(now_ms) - started) / 1000 )).$(( ($(now_ms) - started) % 1000 / 100 ))s"
  else
    log "all $count nodes already up"
  fi
  if bmc_enabled; then start_bmcs; fi
  local existing
  existing=$(existing_nodes | wc -l)
  [ "$existing" -gt "$count" ] && log "note: the testbed has $existing nodes; up never removes nodes (testbed down does)"
  write_inventory
  inventory_path
}

# up --bmc: every node without a running BMC gets one (a node added now,
# or all of them when --bmc comes later than the first up).
start_bmcs() {
  local started node index
  local -a nodes=()
  started=$(now_ms)
  for node in $(existing_nodes); do
    pid_alive "$(read_pid "$(bmc_dir "$node")/sim.pid")" && continue
    index=$(node_index "$node")
    start_bmc "$node" "$index"
    nodes+=("$node")
  done
  [ ${#nodes[@]} -gt 0 ] || return 0
  wait_bmcs "${nodes[@]}"
  log "BMCs of ${nodes[*]} answer at $(bmc_subnet).0/24 after $(( ($(now_ms) - started) / 1000 )).$(( ($(now_ms) - started) % 1000 / 100 ))s"
}

# --backup-controller (kept until down): node01 and node02 boot with the
# SIMULATED shared directory, so it must be asked for before they exist.
ensure_shared_dir() {
  [ -e "$TESTBED_STATE/backup-controller" ] && return 0
  if [ -d "$(node_dir node01)" ] || [ -d "$(node_dir node02)" ]; then
    die "--backup-controller needs node01 and node02 booted with it: testbed down first"
  fi
  mkdir -p "$(shared_dir)"
  cat >"$(shared_dir)/SIMULATED" <<'TEXT'
SIMULATED shared storage (clusterctl's testbed): one directory of the test
machine bound into node01 and node02 at the same path, standing in for the
NFS a real site mounts on both Slurm controllers (this kernel has no NFS client).
TEXT
  touch "$TESTBED_STATE/backup-controller"
}

# Removes everything the testbed made, by its records and its own names.
# Nodes are removed all at once (each power-off waits for its container to
# end; one after another that made a `down` of 3 nodes take about 16 s).
teardown() {
  local node pid status=0
  local -a removing=()
  for node in $(existing_nodes); do
    remove_node "$node" &
    removing+=($!)
  done
  for pid in "${removing[@]}"; do wait "$pid" || status=1; done
  [ "$status" -eq 0 ] || die "some nodes were not removed cleanly (see above)"
  # Leftovers whose records were lost: only names this testbed uses.
  local ns link
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$TESTBED_PREFIX-node" || true); do
    kill_netns_processes "${ns#"$TESTBED_PREFIX"-}"
    retry_for 10 netns_delete "$ns" || die "could not remove network namespace $ns"
  done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$TESTBED_PREFIX-node" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  local mount_point
  while read -r mount_point; do
    umount "$mount_point" 2>/dev/null || umount -l "$mount_point"
  done < <(awk -v d="$TESTBED_STATE/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r)
  stop_proxy
  stop_local_repo
  remove_bridge
  find "$TESTBED_STATE" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
}

# --release for `up`: empty keeps the testbed's release (bookworm for a new
# one); another release than the running nodes' is refused (one cluster is
# one release).
use_release() {
  local wanted=$1
  [ -n "$wanted" ] || return 0
  check_release "$wanted"
  if [ -n "$(existing_nodes)" ] && [ "$wanted" != "$TESTBED_SUITE" ]; then
    die "the testbed's nodes run $TESTBED_SUITE, not $wanted: one cluster is one release (testbed down first)"
  fi
  TESTBED_SUITE=$wanted
}

# Builds what every `up` needs and the testbed keeps (the base image of the
# release, bookworm unless --release), booting nothing: scripts/test.sh runs
# it while it compiles. The bridge and the apt proxy it starts for that are
# stopped again when no node runs.
cmd_prepare() {
  # Another release's image than the running nodes' may be built: nodes
  # mount their own release's image, which this leaves alone.
  local arch
  arch=$(native_arch)
  while [ $# -gt 0 ]; do
    case "$1" in
      --release) check_release "${2:-}"; TESTBED_SUITE=$2; shift 2 ;;
      --arch) arch=${2:-}; shift 2 ;;
      *) die "usage: testbed prepare [--release bookworm|trixie] [--arch $(native_arch)|${!QEMU_ARCH[*]}]" ;;
    esac
  done
  local debian
  for debian in "${!QEMU_ARCH[@]}"; do
    [ "$arch" != "${QEMU_ARCH[$debian]}" ] || die "--arch takes Debian's names: $debian, not $arch"
  done
  [ "$arch" = "$(native_arch)" ] || [ -n "${QEMU_ARCH[$arch]:-}" ] ||
    die "--arch must be $(native_arch) or one the testbed emulates: ${!QEMU_ARCH[*]} (Debian's names; got '$arch')"
  ensure_bridge
  ensure_proxy
  ensure_base "$arch"
  [ -n "$(existing_nodes)" ] || teardown
  log "$arch base image ready in $(dirname "$(base_root "$arch")")"
}

cmd_down() {
  if [ ! -d "$TESTBED_STATE" ]; then log "no testbed"; return 0; fi
  teardown
  log "removed the testbed (base image and apt cache kept in $TESTBED_CACHE)"
}

cmd_status() {
  local nodes
  nodes=$(existing_nodes)
  if [ -z "$nodes" ]; then echo "no testbed (testbed up N)"; return 0; fi
  local proxy_pid
  proxy_pid=$(read_pid "$(proxy_dir)/pid")
  echo "bridge $TESTBED_BRIDGE $BRIDGE_ADDRESS/24; apt proxy $(proxy_url) pid ${proxy_pid:--} ($(pid_alive "$proxy_pid" && echo running || echo stopped))"
  echo "inventory $(inventory_path)"
  if [ -e "$TESTBED_STATE/backup-controller" ]; then
    echo "SIMULATED shared storage $(shared_dir) at $SHARED_MOUNT on node01 and node02 (--backup-controller)"
  fi
  printf '%-8s %-14s %-12s %-11s %-11s %-9s %-8s %-5s %-8s %s\n' NODE ADDRESS STATE SUPERVISOR NSPAWN INIT GPUS HCAS ARCH BMC
  local node dir state init INDEX ADDRESS GPUS HCAS GPU_MODEL ARCH
  for node in $nodes; do
    dir=$(node_dir "$node")
    GPU_MODEL=h100 ARCH=$(native_arch)
    source "$dir/node.env"
    init=$(node_init_pid "$node" 2>/dev/null || echo -)
    if node_running "$node"; then
      state=running
      link_is_up "$node" || state=partitioned
    elif [ -e "$dir/stopped" ]; then
      state=off
    elif [ -e "$dir/hung" ]; then
      state=hung
    else
      state=crashed
    fi
    printf '%-8s %-14s %-12s %-11s %-11s %-9s %-8s %-5s %-8s %s\n' "$node" "$ADDRESS" "$state" \
      "$(read_pid "$dir/supervisor.pid" | grep . || echo -)" "$(read_pid "$dir/nspawn.pid" | grep . || echo -)" \
      "$init" "$GPUS$([ "$GPUS" -gt 0 ] && echo "x$GPU_MODEL")" "$HCAS" "$ARCH" "$(bmc_status "$node")"
  done
}
