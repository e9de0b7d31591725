# Simulated hardware for GPU and InfiniBand roles and facts.
#
# Every node sees a fixture PCI tree bound read-only over
# /sys/bus/pci/devices (so the host's own devices never leak into facts):
# a host bridge and a virtio NIC, plus on compute nodes K NVIDIA GPUs
# (class 030200; H100 SXM5, 10de:2330, unless --gpu-model names another of
# GPU_MODELS: SIMULATED, only the PCI ids change) and M ConnectX-6 HCAs (15b3:101b, class
# 020700). Each HCA function carries infiniband/mlx5_N/ports/1 with the sysfs
# files a real one has (state, phys_state, rate, link_layer, ...); sysfs in a
# container cannot gain /sys/class/infiniband, so facts find IB ports under
# their PCI function, as they can on real hardware. GPUs also get character
# devices /dev/nvidia0..K-1 (major 195) and, for MIG, SIMULATED
# /dev/nvidia-caps/nvidia-capN for every GPU/compute instance a GPU can have
# and the driver's table of their minors, /proc/driver/nvidia-caps/mig-minors
# (write_mig_caps). No driver is bound: until the nvidia-driver role installs
# the testbed's SIMULATED nvidia-smi, there is none, so GPU checks see
# "driver not loaded".

GPU_BUS_IDS=(18 2a 3a 5d 9a ab ba db)
HCA_BUS_IDS=(0c 1f 40 4f 8c 9f c0 ce)
# --gpu-model NAME -> "device subsystem_device" of that card's PCI function.
declare -A GPU_MODELS=([h100]="0x2330 0x16c1" [a100]="0x20b2 0x1463" [l40s]="0x26b9 0x1851")

write_pci_function() {
  local dir=$1 vendor=$2 device=$3 class=$4 subsystem_vendor=$5 subsystem_device=$6 numa=$7
  mkdir -p "$dir"
  echo "$vendor" >"$dir/vendor"
  echo "$device" >"$dir/device"
  echo "$class" >"$dir/class"
  echo "$subsystem_vendor" >"$dir/subsystem_vendor"
  echo "$subsystem_device" >"$dir/subsystem_device"
  echo "$numa" >"$dir/numa_node"
  echo 0x00 >"$dir/revision"
  echo 1 >"$dir/enable"
}

bus_id() {
  local -n ids=$1
  local i=$2
  if [ "$i" -lt "${#ids[@]}" ]; then echo "${ids[$i]}"; else printf '%02x' $((0xe0 + i)); fi
}

# make_hardware DIR GPUS HCAS [NVSWITCHES] [GPU_MODEL]: writes DIR/pci and DIR/dev.
# NVSwitches are H100-generation functions (10de:22a3, class 068000), as on
# an HGX H100 baseboard.
make_hardware() {
  local dir=$1 gpus=$2 hcas=$3 nvswitches=${4:-0} model=${5:-h100}
  local ids
  read -r -a ids <<<"${GPU_MODELS[$model]:?unknown GPU model $model}"
  rm -rf "$dir"
  mkdir -p "$dir/pci" "$dir/dev"
  write_pci_function "$dir/pci/0000:00:00.0" 0x8086 0x2020 0x060000 0x8086 0x0000 -1
  write_pci_function "$dir/pci/0000:00:03.0" 0x1af4 0x1041 0x020000 0x1af4 0x1100 -1
  local i bus
  for ((i = 0; i < gpus; i++)); do
    bus=$(bus_id GPU_BUS_IDS "$i")
    write_pci_function "$dir/pci/0000:$bus:00.0" 0x10de "${ids[0]}" 0x030200 0x10de "${ids[1]}" $((i < gpus / 2 ? 0 : 1))
    echo "32.0 GT/s PCIe" >"$dir/pci/0000:$bus:00.0/current_link_speed"
    echo 16 >"$dir/pci/0000:$bus:00.0/current_link_width"
    mknod "$dir/dev/nvidia$i" c 195 "$i"
  done
  [ "$gpus" -eq 0 ] || write_mig_caps "$dir" "$gpus"
  for ((i = 0; i < nvswitches; i++)); do
    write_pci_function "$dir/pci/0000:0$((5 + i)):00.0" 0x10de 0x22a3 0x068000 0x10de 0x1796 $((i < nvswitches / 2 ? 0 : 1))
  done
  for ((i = 0; i < hcas; i++)); do
    bus=$(bus_id HCA_BUS_IDS "$i")
    local function="$dir/pci/0000:$bus:00.0"
    write_pci_function "$function" 0x15b3 0x101b 0x020700 0x15b3 0x0007 $((i < hcas / 2 ? 0 : 1))
    local ib="$function/infiniband/mlx5_$i"
    mkdir -p "$ib/ports/1"
    echo "20.31.1014" >"$ib/fw_ver"
    echo "MT4123" >"$ib/hca_type"
    echo "MT_0000000223" >"$ib/board_id"
    printf '0c42:a103:00%02x:%04x\n' "$i" "$RANDOM" >"$ib/node_guid"
    echo "4: ACTIVE" >"$ib/ports/1/state"
    echo "5: LinkUp" >"$ib/ports/1/phys_state"
    echo "200 Gb/sec (4X HDR)" >"$ib/ports/1/rate"
    echo "InfiniBand" >"$ib/ports/1/link_layer"
    printf '0x%x\n' $((100 + i)) >"$ib/ports/1/lid"
    echo "0x1" >"$ib/ports/1/sm_lid"
  done
}

# SIMULATED MIG capability devices of GPUS GPUs: what a MIG-capable driver
# publishes (NVIDIA's MIG User Guide, "Device Nodes and Capabilities"):
# /proc/driver/nvidia-caps/mig-minors, one line "gpuG/giI/access MINOR" and
# "gpuG/giI/ciC/access MINOR" per GPU instance I (0-14) and compute instance
# C (0-7), MINOR = 3 + 135 G + 9 I (+ 1 + C), the numbering real nodes show
# (gpu4/gi7/access 606, ci0 607; gpu0/gi7 66, 67: SOURCES.md), and a
# /dev/nvidia-caps/nvidia-capMINOR for each. Their major, 511, stands for
# the driver's dynamic one: no kernel driver answers it (opening one that a
# job's cgroup allows gives ENXIO, one it denies EPERM). Each directory has a
# SIMULATED file saying so.
write_mig_caps() {
  local dir=$1 gpus=$2
  mkdir -p "$dir/dev/nvidia-caps" "$dir/proc-driver/nvidia-caps"
  python3 - "$dir" "$gpus" <<'EOF2'
import os, sys
dir, gpus = sys.argv[1], int(sys.argv[2])
lines = ["config 1", "monitor 2"]
for g in range(gpus):
    for i in range(15):
        base = 3 + 135 * g + 9 * i
        lines.append("gpu%d/gi%d/access %d" % (g, i, base))
        lines += ["gpu%d/gi%d/ci%d/access %d" % (g, i, c, base + 1 + c) for c in range(8)]
with open(dir + "/proc-driver/nvidia-caps/mig-minors", "w") as f:
    f.write("\n".join(lines) + "\n")
for line in lines:
    os.mknod(dir + "/dev/nvidia-caps/nvidia-cap" + line.split()[1], 0o20444, os.makedev(511, int(line.split()[1])))
EOF2
  echo "SIMULATED: MIG capability devices of the clusterctl testbed (major 511: no driver answers it)" \
    >"$dir/dev/nvidia-caps/SIMULATED"
  echo "SIMULATED: the MIG minors a driver publishes, written by the clusterctl testbed" \
    >"$dir/proc-driver/nvidia-caps/SIMULATED"
}

# nspawn cannot bind into the node's /proc (it mounts its procfs over the
# custom mounts), so the MIG minors are bound here and a boot unit of the
# node (simulated_proc_driver_unit) binds them over /proc/driver.
SIMULATED_PROC_DRIVER=/usr/lib/clusterctl-testbed/proc-driver

simulated_proc_driver_unit() {
  local root=$1
  cat >"$root/etc/systemd/system/testbed-simulated-proc-driver.service" <<UNIT
[Unit]
Description=testbed: SIMULATED /proc/driver/nvidia-caps (the MIG minors a driver publishes)
DefaultDependencies=no
Before=sysinit.target
ConditionPathIsDirectory=$SIMULATED_PROC_DRIVER/nvidia-caps
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/mount --bind $SIMULATED_PROC_DRIVER /proc/driver
[Install]
WantedBy=sysinit.target
UNIT
  mkdir -p "$root/etc/systemd/system/sysinit.target.wants"
  ln -sf ../testbed-simulated-proc-driver.service "$root/etc/systemd/system/sysinit.target.wants/testbed-simulated-proc-driver.service"
}

# nspawn arguments that show the node its hardware.
hardware_nspawn_args() {
  local dir=$1
  echo "--bind-ro=$dir/pci:/sys/bus/pci/devices"
  local dev
  for dev in "$dir"/dev/nvidia*; do
    [ -c "$dev" ] && echo "--bind=$dev:/dev/$(basename "$dev")"
  done
  if [ -d "$dir/dev/nvidia-caps" ]; then
    echo "--bind=$dir/dev/nvidia-caps:/dev/nvidia-caps"
    echo "--bind-ro=$dir/proc-driver:$SIMULATED_PROC_DRIVER"
  fi
  return 0
}
