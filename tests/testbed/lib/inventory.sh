# The inventory the testbed writes for its nodes, in clusterctl's own format
# (docs/inventory.md): node01 is the head (controller, login; with
# --services also the NFS server and the monitoring host); the others are
# compute nodes (NFS clients with --services). With --backup-controller,
# node02 is also the backup Slurm controller, its state on the SIMULATED
# shared directory.

inventory_path() { echo "$TESTBED_STATE/inventory.yaml"; }

# The hosts: section's entries for node01..node<LAST>, with each node's
# fabric (--hcas M): ib<i> on rail i, in its own /24 per rail. With BMCs
# (up --bmc) one entry per node: each has a password file of its own.
inventory_hosts() {
  local last=$1
  if bmc_enabled; then
    local index
    for ((index = 1; index <= last; index++)); do
      [ "$index" -gt 1 ] && echo
      inventory_host_with_bmc "$index"
    done
    return 0
  fi
  local hosts hcas i range
  local first_address=$((10 + 1)) last_address=$((10 + last))
  if [ "$last" -eq 1 ]; then
    hosts="  node01:
    address: $TESTBED_SUBNET.11"
  else
    hosts="  node[01-$(printf '%02d' "$last")]:
    address: $TESTBED_SUBNET.[$first_address-$last_address]"
  fi
  hcas=$(source "$(node_dir node01)/node.env"; echo "$HCAS")
  if [ "$hcas" -gt 0 ]; then
    range=$([ "$last" -eq 1 ] && echo 11 || echo "[$first_address-$last_address]")
    hosts+="
    interfaces:"
    for ((i = 0; i < hcas; i++)); do hosts+="
      ib$i: $(fabric_subnet "$i").$range/24"; done
  fi
  printf '%s' "$hosts"
}

# One host's entry with its BMC (no trailing newline).
inventory_host_with_bmc() {
  local index=$1 node hcas i
  node=$(node_name "$index")
  printf '  %s:\n    address: %s\n' "$node" "$(node_address "$index")"
  printf '    bmc: {address: %s, password_file: %s}' "$(bmc_address "$index")" "$(bmc_password_file_relative "$node")"
  hcas=$(source "$(node_dir node01)/node.env"; echo "$HCAS")
  if [ "$hcas" -gt 0 ]; then
    printf '\n    interfaces:'
    for ((i = 0; i < hcas; i++)); do printf '\n      ib%s: %s.%s/24' "$i" "$(fabric_subnet "$i")" "$((10 + index))"; done
  fi
}

# With BMCs: what every host's BMC shares (ipmi_sim offers cipher suite 3
# only). Starts with a newline.
inventory_bmc_defaults() {
  bmc_enabled || return 0
  printf '%s' "
# The nodes' simulated BMCs (testbed up --bmc): ipmi_sim, IPMI over LAN on
# $(bmc_subnet).0/24; each host's address and password file below.
bmc:
  user: $BMC_USER
  cipher_suite: 3
"
}

# The compute group's hosts: node02..node<LAST> (node01 alone when LAST is 1).
inventory_compute() {
  local last=$1
  if [ "$last" -eq 1 ]; then
    echo node01
  else
    [ "$last" -eq 2 ] && echo node02 || echo "node[02-$(printf '%02d' "$last")]"
  fi
}

# With --services: the variables of NFS and monitoring.
inventory_service_vars() {
  cat <<'VARS'
  # node01's /export/home mounted as /home on the compute nodes (over ib0
  # when the nodes have adapters). This kernel has no NFS server or client
  # module: the server is nfs-ganesha in user space (/export is the
  # machine's ext4, bound in: the overlay root has no file handles); the
  # clients' fstab entries are written and their kernel mount is skipped
  # (validate's nfs.mounts says so and fails), and validate's nfs.export
  # proves the export with libnfs instead.
  nfs_implementation: ganesha
  nfs_exports:
    - {path: /export/home, clients: [compute]}
  nfs_mounts:
    - {export: /export/home, path: /home}
VARS
  # ganesha 6.5 (trixie) stops at start without CAP_SYS_RESOURCE, which the
  # nodes lack (README, Limits); bookworm's ganesha has no such option.
  if [ "$TESTBED_SUITE" = trixie ]; then
    printf '%s\n' "  nfs_ganesha_allow_io_flusher_fail: true"
  fi
  printf '%s' "  # Grafana from the testbed's local repository (SIMULATED packages: a
  # site's mirror of Grafana's repository stands in for apt.grafana.com).
  grafana_repository: $(local_repo_url)
  grafana_repository_suite: ./"
}

# With GPUs: the driver from the local repository, a site's mirror of
# NVIDIA's (SIMULATED packages). Starts with a newline.
inventory_gpu_vars() {
  printf '%s' "
  # The NVIDIA driver from the testbed's local repository: SIMULATED packages
  # with NVIDIA's names, versions and dependencies (tests/testbed/lib/
  # nvidia_repo.sh); the loaded module is SIMULATED too, derived at each boot.
  # The open kernel modules, NVIDIA's recommendation for H100 (the default
  # from R560): the simulated module says so (its taint flags), so on nodes
  # with HCAs the facts offer DMA-BUF and the gpudirect role has its method.
  nvidia_driver_modules: open
  nvidia_driver_source: site
  nvidia_driver_repository: $(local_repo_url)
  nvidia_driver_repository_trusted: true
  nvidia_driver_branch: '550'
  nvidia_driver_version: ${NVIDIA_SIM_VERSIONS[0]}"
}

# With --backup-controller: node02 backs up node01's slurmctld, their
# StateSaveLocation on the SIMULATED shared directory. Starts with a newline.
inventory_backup_vars() {
  printf '%s' "
  # SIMULATED shared storage: node01 and node02 see one directory of the test
  # machine at $SHARED_MOUNT (this kernel has no NFS client). On a real site
  # this is a file system both controllers mount, such as NFS.
  slurm_state_dir: $SHARED_MOUNT/slurmctld
  # The backup takes over 10 s after the primary stops answering (prompt tests).
  slurm_controller_timeout: 10"
}

# Outside nodes (up --outside) are not listed: the testbed's stand-ins for
# a site's own servers (a NAS), which clusterctl does not manage.
write_inventory() {
  local -a nodes
  mapfile -t nodes < <(existing_nodes | while read -r n; do [ -e "$(node_dir "$n")/outside" ] || echo "$n"; done)
  local count=${#nodes[@]}
  [ "$count" -gt 0 ] || return 0
  local last hosts compute
  last=$(node_index "${nodes[$((count - 1))]}")
  if [ "$count" -ne "$last" ]; then die "nodes are not contiguous (node01..$(node_name "$last")): ${nodes[*]}"; fi
  hosts=$(inventory_hosts "$last")
  compute=$(inventory_compute "$last")
  # The optional parts are kept for the testbed's life (marker files).
  local service_vars="" service_groups="" gpu_vars="" backup_vars="" backup_groups=""
  if [ -e "$TESTBED_STATE/services" ]; then
    service_vars=$(inventory_service_vars)
    service_groups="  nfs_server:
    hosts: node01
  nfs_clients:
    children: [compute]
  monitoring:
    hosts: node01"
  fi
  if [ -e "$TESTBED_STATE/gpus" ]; then gpu_vars=$(inventory_gpu_vars); fi
  if [ -e "$TESTBED_STATE/backup-controller" ] && [ "$count" -ge 2 ]; then
    backup_vars=$(inventory_backup_vars)
    backup_groups="
  controller_backup:
    hosts: node02"
  fi
  cat >"$(inventory_path).tmp" <<YAML
# Written by tests/testbed/testbed up; rewritten whenever the testbed grows.
version: 1
cluster: testbed

connection:
  user: root
  key_file: ssh/id_ed25519
  host_key_policy: accept-new
  connect_timeout: 5
$(inventory_bmc_defaults)
vars:
  # Nodes share the machine's clock and may not set it (no CAP_SYS_TIME):
  # chronyd serves and tracks time with -x (roles/chrony.yaml).
  chrony_no_clock_control: true
  # validate's mpi.cluster: the ranks' traffic is real TCP over veth, but both
  # ranks busy-poll on this machine's few shared cores (measured 3.9-4.1 ms
  # one way, 230-280 MB/s), far from a cluster's defaults (10 us over
  # InfiniBand, 100 us over TCP).
  validate_mpi_latency_max_us: 50000
  validate_mpi_bandwidth_min_mbps: 20
$service_vars$gpu_vars$backup_vars
hosts:
$hosts

groups:
  controller:
    hosts: node01$backup_groups
  login:
    hosts: node01
  compute:
    hosts: $compute
    vars:
      # The Slurm health check (docs/health.md) without the checks the
      # testbed's SIMULATED GPUs and HCAs can never pass (gpu.*, ib.*: the
      # simulated nvidia-smi and ports are refused by validate by design).
      slurm_health_checks: [clock.offset, node.disk, node.resources, munge.decode]
$service_groups
YAML
  mv "$(inventory_path).tmp" "$(inventory_path)"
}

cmd_inventory() {
  [ -f "$(inventory_path)" ] || die "no testbed (testbed up N)"
  inventory_path
}
