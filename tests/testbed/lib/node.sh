# Node lifecycle: prepare (overlay, identity, hardware, network), boot under
# a supervisor that restarts the container when it reboots (nspawn exit 133),
# power-cut, and removal. Per-node records live in $TESTBED_STATE/nodes/NODE:
#   root/ upper/ work/   the overlay (lower = base image)
#   hw/                  simulated hardware (pci/, dev/)
#   node.env             index, address, gpus, hcas, nvswitches, gpu model, architecture (Debian's name)
#   sysmodule/           GPU nodes: their SIMULATED /sys/module, derived at each boot (nvidia_repo.sh)
#   supervisor.pid nspawn.pid   the processes the testbed started
#   bmc/                 up --bmc: the node's simulated BMC (bmc.sh)
#   stopped              present while the node is powered off on purpose
#   hang-reboot, hung    its next reboot hangs (testbed hang-reboot); it hangs now
#   console.log exits.log

mounted() { grep -q " $1 " /proc/self/mounts; }

prepare_node() {
  local node=$1 index=$2 gpus=$3 hcas=$4 nvswitches=${5:-0} gpu_model=${6:-h100} outside=${7:-0} arch=${8:-$(native_arch)}
  local dir root
  dir=$(node_dir "$node")
  root="$dir/root"
  # An emulated node (another architecture than the machine's) runs its
  # programs through binfmt_misc, here already (the chown below) and at boot.
  [ "$arch" = "$(native_arch)" ] || ensure_emulation "$arch"
  mkdir -p "$dir/upper" "$dir/work" "$root"
  mounted "$root" || mount -t overlay overlay \
    -o "lowerdir=$(base_root "$arch"),upperdir=$dir/upper,workdir=$dir/work" "$root"
  [ "$arch" = "$(native_arch)" ] || emulated_node_setup "$root"
  cat >"$dir/node.env" <<ENV
INDEX=$index
ADDRESS=$(node_address "$index")
GPUS=$gpus
HCAS=$hcas
NVSWITCHES=$nvswitches
GPU_MODEL=$gpu_model
ARCH=$arch
ENV
  echo "$node" >"$root/etc/hostname"
  printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$node" >"$root/etc/hosts"
  [ -s "$root/etc/machine-id" ] || tr -d '-' </proc/sys/kernel/random/uuid >"$root/etc/machine-id"
  if ! ls "$root"/etc/ssh/ssh_host_*_key >/dev/null 2>&1; then ssh-keygen -q -A -f "$root" >/dev/null; fi
  local home
  for home in "$root/root" "$root/home/admin"; do
    mkdir -p "$home/.ssh"
    cp "$(ssh_key).pub" "$home/.ssh/authorized_keys"
    chmod 700 "$home/.ssh"
    chmod 600 "$home/.ssh/authorized_keys"
  done
  chroot "$root" chown -R admin:admin /home/admin/.ssh
  # The local repository on the bridge is reached directly, not through the proxy.
  printf 'Acquire::http::Proxy "%s";\nAcquire::http::Proxy::%s "DIRECT";\n' "$(proxy_url)" "$BRIDGE_ADDRESS" \
    >"$root/etc/apt/apt.conf.d/01testbed-proxy"
  writable_cgroups_unit "$root"
  simulated_proc_driver_unit "$root"
  mask_rpc_pipefs_units "$root"
  if [ "$index" -eq 1 ] && [ -e "$TESTBED_STATE/services" ]; then mkdir -p "$dir/export"; fi
  # An outside node (--outside): a storage server the inventory does not list.
  if [ "$outside" -eq 1 ]; then mkdir -p "$dir/export" && touch "$dir/outside"; fi
  make_hardware "$dir/hw" "$gpus" "$hcas" "$nvswitches" "$gpu_model"
  # A GPU node has a kernel installed to boot next, as a fresh node has.
  if [ "$gpus" -gt 0 ] && [ -z "$(ls "$root/boot" 2>/dev/null | grep '^vmlinuz-')" ]; then install_sim_kernel "$root"; fi
  ensure_node_network "$node" "$index"
  ensure_fabric_links "$node" "$hcas"
}

# nspawn mounts the cgroup v1 controllers read-only in the node. The node's
# cgroup namespace is rooted in its own cgroup (cgroup.sh), so making them
# writable lets its services (slurmd's proctrack/cgroup, task/cgroup,
# ConstrainDevices) create cgroups below it, as on a real machine.
writable_cgroups_unit() {
  local root=$1
  cat >"$root/etc/systemd/system/testbed-writable-cgroups.service" <<'UNIT'
[Unit]
Description=testbed: cgroup controllers writable, as on a real machine
DefaultDependencies=no
Before=sysinit.target
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'for d in /sys/fs/cgroup/*/; do [ -e "$d/cgroup.procs" ] && mount -o remount,bind,rw "$d"; done; true'
[Install]
WantedBy=sysinit.target
UNIT
  mkdir -p "$root/etc/systemd/system/sysinit.target.wants"
  ln -sf ../testbed-writable-cgroups.service "$root/etc/systemd/system/sysinit.target.wants/testbed-writable-cgroups.service"
}

# This kernel has no rpc_pipefs (no NFS modules): nfs-common's GSS daemon
# would fail at every boot and leave the node "degraded". Masked in every
# node, as a site without Kerberos NFS may do.
mask_rpc_pipefs_units() {
  local root=$1
  ln -sf /dev/null "$root/etc/systemd/system/rpc-gssd.service"
  ln -sf /dev/null "$root/etc/systemd/system/run-rpc_pipefs.mount"
}

# With --services, the storage node (node01: nfs_server) serves NFS with
# nfs-ganesha, whose VFS backend needs file handles: the node's overlay root
# has none (EOPNOTSUPP), so /export is a directory of the machine's ext4
# bound in, and nspawn's seccomp filter, which refuses open_by_handle_at,
# lets that one call through for this node alone. With CAP_DAC_READ_SEARCH
# that call can open any inode of a file system the node sees by handle: a
# deliberate, documented loosening for the NFS server nodes of a test rig
# (node01 with --services, and an --outside node: a site's NAS).
storage_nspawn_args() {
  local dir=$1 index=$2
  { [ "$index" -eq 1 ] || [ -e "$dir/outside" ]; } && [ -d "$dir/export" ] || return 0
  echo "--bind=$dir/export:/export"
  echo "--system-call-filter=open_by_handle_at"
}

# With --backup-controller, node01 (controller) and node02 (its backup) see
# one directory of the machine at the same path: a SIMULATED shared file
# system standing in for the NFS a real site mounts on both controllers for
# slurmctld's StateSaveLocation (this kernel has no NFS client). It is the
# same directory, so what one node writes the other reads at once, as NFS
# would; NFS's own behaviour (caching, locks, a server outage) is not there.
shared_nspawn_args() {
  local index=$1
  [ -e "$TESTBED_STATE/backup-controller" ] && [ "$index" -le 2 ] || return 0
  echo "--bind=$(shared_dir):$SHARED_MOUNT"
}

# Runs in the background (setsid) for the life of a node. The node may
# configure its own network (CAP_NET_ADMIN: systemd-networkd, ip): the
# namespace is its own, so that reaches nothing else.
supervise_node() {
  local node=$1
  local dir root rc
  dir=$(node_dir "$node")
  root="$dir/root"
  record_pid "$dir/supervisor.pid" $$
  enter_node_cgroup "$node"
  local -a hardware
  mapfile -t hardware < <(hardware_nspawn_args "$dir/hw")
  local INDEX GPUS HCAS ADDRESS NVSWITCHES=0 ARCH
  ARCH=$(native_arch)
  source "$dir/node.env"
  local -a emulated
  mapfile -t emulated < <(emulated_nspawn_args "$ARCH")
  local -a storage
  mapfile -t storage < <(storage_nspawn_args "$dir" "$INDEX")
  mapfile -t -O "${#storage[@]}" storage < <(shared_nspawn_args "$INDEX")
  local -a modules=()
  [ "$GPUS" -gt 0 ] && modules=("--bind-ro=$dir/sysmodule:/sys/module")
  # --system-call-filter=@keyring: nspawn's seccomp filter refuses the
  # kernel keyring calls (add_key, keyctl: EPERM), which a real machine
  # allows; an OCI runtime (crun, runc) gives every container a session
  # keyring of its own and fails without them ("create keyring: Operation
  # not permitted"), so Slurm's `srun --container` could not run here.
  # --rlimit: a real node's init has no memlock ceiling (RDMA pins job
  # memory; slurmd asks for LimitMEMLOCK=infinity); without it the nodes
  # inherit this machine's hard limits, which they may not raise. It takes
  # effect only where this machine's root may raise them (CAP_SYS_RESOURCE):
  # the sandboxes CI runs in lack it and keep their 8 MiB (slurm_site_checks.sh
  # says LIMITED there).
  while [ ! -e "$dir/stopped" ]; do
    reset_fabric_links "$node" "$HCAS"
    if [ "$GPUS" -gt 0 ]; then
      derive_loaded_modules "$root" "$dir/sysmodule" || echo "$(date '+%F %T') could not derive the simulated modules" >>"$dir/exits.log"
    fi
    systemd-nspawn -D "$root" --register=no --keep-unit \
      --network-namespace-path="/run/netns/$(netns_name "$node")" \
      --capability=CAP_NET_ADMIN --system-call-filter=@keyring \
      --rlimit=MEMLOCK=infinity --rlimit=NOFILE=1048576 \
      --resolv-conf=off --timezone=off --link-journal=no --console=read-only \
      -M "$node" "${hardware[@]}" "${storage[@]}" "${modules[@]}" "${emulated[@]}" -b </dev/null &
    record_pid "$dir/nspawn.pid" $!
    rc=0
    wait $! || rc=$?
    echo "$(date '+%F %T') nspawn exited with status $rc" >>"$dir/exits.log"
    [ "$rc" -eq 133 ] || break  # 133: the node rebooted itself; boot it again
    if [ -e "$dir/hang-reboot" ]; then
      hang_in_firmware "$dir"
      break
    fi
  done
  rm -f "$dir/nspawn.pid" "$dir/supervisor.pid"
}

# `testbed hang-reboot NODE` made the node's next reboot hang before its OS
# boots, as a server hangs in its firmware (SIMULATED: the flag file
# hang-reboot, taken by this one reboot). The container stays down for
# real; the supervisor, which is the node's power as its BMC reads it,
# lives on until the node is powered off (its BMC's power off or cycle,
# or testbed kill), so the BMC reads on meanwhile, as a hung server's does.
hang_in_firmware() {
  local dir=$1
  rm -f "$dir/hang-reboot" "$dir/nspawn.pid"
  touch "$dir/hung"
  echo "$(date '+%F %T') the reboot hangs (SIMULATED firmware hang): down until powered off and on" >>"$dir/exits.log"
  while [ ! -e "$dir/stopped" ]; do
    sleep 0.5
  done
  rm -f "$dir/hung"
}

start_supervisor() {
  local node=$1 dir
  dir=$(node_dir "$node")
  rm -f "$dir/stopped"
  setsid "$TESTBED_HOME/testbed" __supervise "$node" >>"$dir/console.log" 2>&1 </dev/null 8>&- 9>&- &
  local i
  # Before nspawn starts, the supervisor resets the fabric links and derives
  # a GPU node's simulated modules: seconds under a loaded CPU (5 s were too
  # few with compiles beside it, load 8), so up to 60 s.
  for i in $(seq 600); do [ -f "$dir/nspawn.pid" ] && return 0; sleep 0.1; done
  die "$node: the supervisor did not start; see $dir/console.log"
}

# The container's PID 1 as seen from the host: the descendant of nspawn whose
# innermost PID is 1.
node_init_pid() {
  local node=$1 nspawn pid queue
  nspawn=$(read_pid "$(node_dir "$node")/nspawn.pid")
  pid_alive "$nspawn" || return 1
  queue=("$nspawn")
  while [ ${#queue[@]} -gt 0 ]; do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    if [ "$pid" != "$nspawn" ] && awk '/^NSpid:/ { exit !($NF == 1 && NF > 2) }' "/proc/$pid/status" 2>/dev/null; then
      echo "$pid"
      return 0
    fi
    # shellcheck disable=SC2207
    queue+=($(cat /proc/"$pid"/task/*/children 2>/dev/null))
  done
  return 1
}

node_running() {
  local dir
  dir=$(node_dir "$1")
  pid_alive "$(read_pid "$dir/supervisor.pid")" && pid_alive "$(read_pid "$dir/nspawn.pid")"
}

# Waits until every given node answers SSH with systemctl is-system-running = running.
wait_ready() {
  local deadline=$(($(date +%s) + ${READY_TIMEOUT:-180})) node state failed=0
  local -A pending=()
  for node in "$@"; do pending[$node]=1; done
  while [ ${#pending[@]} -gt 0 ]; do
    for node in "${!pending[@]}"; do
      state=$(ssh $(ssh_options) "root@$(source "$(node_dir "$node")/node.env"; echo "$ADDRESS")" \
        systemctl is-system-running 2>/dev/null || true)
      case "$state" in
        running) unset "pending[$node]" ;;
        degraded)
          log "$node: degraded; failed units:"
          ssh $(ssh_options) "root@$(source "$(node_dir "$node")/node.env"; echo "$ADDRESS")" \
            systemctl --failed --no-legend >&2 || true
          unset "pending[$node]"
          failed=1
          ;;
      esac
    done
    [ ${#pending[@]} -eq 0 ] && break
    if [ "$(date +%s)" -ge "$deadline" ]; then
      die "nodes not ready in time: ${!pending[*]} (see $TESTBED_STATE/nodes/NODE/console.log)"
    fi
    sleep 0.3
  done
  [ "$failed" -eq 0 ] || die "some nodes booted degraded"
}

# Power-cut: SIGKILL to the container's PID 1 takes its whole PID namespace down at once.
power_off_node() {
  local node=$1 dir init i
  dir=$(node_dir "$node")
  touch "$dir/stopped"
  if init=$(node_init_pid "$node"); then kill -9 "$init" 2>/dev/null || true; fi
  kill_netns_processes "$node"  # also finds a container whose nspawn died
  for i in $(seq 100); do
    pid_alive "$(read_pid "$dir/supervisor.pid")" || pid_alive "$(read_pid "$dir/nspawn.pid")" || break
    sleep 0.1
  done
  local pid
  for pid in "$(read_pid "$dir/nspawn.pid")" "$(read_pid "$dir/supervisor.pid")"; do
    if pid_alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi  # it may end between the two
  done
  rm -f "$dir/nspawn.pid" "$dir/supervisor.pid"
}

remove_node() {
  local node=$1 dir
  dir=$(node_dir "$node")
  stop_bmc "$node"
  power_off_node "$node"
  local mount_point
  # Innermost first: anything mounted below the node's directory, then the overlay.
  while read -r mount_point; do
    umount "$mount_point" 2>/dev/null || umount -l "$mount_point"
  done < <(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r)
  remove_node_network "$node"
  remove_node_cgroup "$node"
  rmdir "/run/systemd/nspawn/propagate/$node" 2>/dev/null || true
  retry_for 5 rm -rf "$dir" 2>/dev/null || die "$node: could not remove $dir: $(rm -rf "$dir" 2>&1 | head -3)"
}

cmd_exec() {
  local node=${1:?usage: testbed exec NODE CMD...}
  shift
  require_node "$node"
  local init
  init=$(node_init_pid "$node") || die "$node is not running"
  exec nsenter --target "$init" --mount --uts --ipc --net --pid --root --wd -- "$@"
}

cmd_ssh() {
  local node=${1:?usage: testbed ssh NODE [CMD...]}
  shift
  require_node "$node"
  local address
  address=$(source "$(node_dir "$node")/node.env"; echo "$ADDRESS")
  # shellcheck disable=SC2046
  exec ssh $(ssh_options) "root@$address" "$@"
}

cmd_rekey() {
  local node=${1:?usage: testbed rekey NODE}
  require_node "$node"
  local init address
  init=$(node_init_pid "$node") || die "$node is not running"
  address=$(source "$(node_dir "$node")/node.env"; echo "$ADDRESS")
  nsenter --target "$init" --mount --uts --ipc --net --pid --root --wd -- \
    sh -c 'rm -f /etc/ssh/ssh_host_* && ssh-keygen -q -A >/dev/null && systemctl restart ssh'
  ssh-keygen -q -R "$address" -f "$TESTBED_STATE/ssh/known_hosts" >/dev/null 2>&1 || true
  log "$node: new SSH host keys: $(ssh-keygen -lf "$(node_dir "$node")/root/etc/ssh/ssh_host_ed25519_key.pub" | awk '{print $2}')"
}

cmd_kill() {
  local node=${1:?usage: testbed kill NODE}
  require_node "$node"
  power_off_node "$node"
  log "$node: powered off (testbed start $node powers it on)"
}

cmd_hang_reboot() {
  local node=${1:?usage: testbed hang-reboot NODE}
  require_node "$node"
  touch "$(node_dir "$node")/hang-reboot"
  log "$node: its next reboot hangs (SIMULATED firmware hang) until it is powered off and on (its BMC's power cycle, or testbed kill and start)"
}

cmd_start() {
  local node=${1:?usage: testbed start NODE}
  require_node "$node"
  if node_running "$node"; then log "$node: already running"; return 0; fi
  if [ -e "$(node_dir "$node")/hung" ]; then power_off_node "$node"; fi  # its hung supervisor ends first
  local INDEX GPUS HCAS ADDRESS NVSWITCHES=0 GPU_MODEL=h100 ARCH
  ARCH=$(native_arch)
  source "$(node_dir "$node")/node.env"
  ensure_bridge
  ensure_proxy
  prepare_node "$node" "$INDEX" "$GPUS" "$HCAS" "$NVSWITCHES" "$GPU_MODEL" 0 "$ARCH"
  start_supervisor "$node"
  wait_ready "$node"
  bmc_follow_start "$node"
  log "$node: running"
}
