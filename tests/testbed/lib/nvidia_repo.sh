# NVIDIA's packages for the testbed's local repository (tests/testbed/lib/
# local_repo.sh): what a site's mirror of NVIDIA's CUDA repository is to its
# GPU nodes, for the nvidia-driver, cuda-toolkit and dcgm roles' cuda-repo
# and site sources. Every package is SIMULATED: NVIDIA's names, versions
# (ending in +simulated) and dependencies, placeholder files only (every
# description starts with SIMULATED, every package ships
# /usr/share/doc/PKG/SIMULATED). No kernel module, library or daemon here is
# real:
#   cuda-drivers-550, nvidia-open-550   the branch metapackages, each
#                     depending on its kernel module package, nvidia-smi,
#                     libcuda1 and nvidia-persistenced at `= version`
#   nvidia-kernel-dkms, nvidia-kernel-open-dkms
#                     a SIMULATED DKMS: configuring it writes a placeholder
#                     nvidia.ko (holding its version and licence, as a real
#                     module's .modinfo does: "NVIDIA" for the proprietary
#                     modules, "Dual MIT/GPL" for the open ones) for every
#                     kernel with headers (/lib/modules/R/build/Makefile)
#                     and, as DKMS says, skips the others
#   nvidia-smi        a SIMULATED nvidia-smi (nvidia_smi_simulated.py): MIG
#                     (mode, -lgip, -cgi/-dci/-dgi, -lgi, -lci) and -L, with
#                     state in files on the node, output shaped as real
#                     captures' and SIMULATED said on stderr every time;
#                     anything else says it is simulated and fails
#                     (validate never passes)
#   nvidia-persistenced, nvidia-fabricmanager-550, libnvidia-nscq-550,
#   datacenter-gpu-manager   placeholder daemons that only log and wait
#   datacenter-gpu-manager-exporter   a SIMULATED dcgm-exporter
#                     (dcgm_exporter_simulated.py): listens where
#                     DCGM_EXPORTER_LISTEN says, as NVIDIA's does, and serves
#                     /metrics, every series labelled simulated="true" and
#                     none a DCGM field
#   cuda-toolkit-12-4, cuda-toolkit-12-6   /usr/local/cuda-12.N with a
#                     placeholder nvcc, registered as the `cuda` alternative
#   linux-image-6.1.0-99-simulated, linux-headers-6.1.0-99-simulated
#                     a kernel for the GPU nodes to "boot next" (a /boot
#                     image and a headers tree, both placeholders: the
#                     containers run the machine's kernel)
#   linux-image-6.1.0-100-simulated   a newer kernel with no headers package
#                     anywhere: the driver cannot be built for it
# Driver versions: 550.127.05 and 550.144.03 have a fabric manager and NSCQ
# at their version; 550.163.01 has none (the fabric-manager mismatch).

NVIDIA_SIM_VERSIONS=(550.127.05-1+simulated 550.144.03-1+simulated 550.163.01-1+simulated)
NVIDIA_SIM_FABRIC_VERSIONS=(550.127.05-1+simulated 550.144.03-1+simulated)
NVIDIA_SIM_KERNEL=6.1.0-99-simulated
NVIDIA_SIM_KERNEL_WITHOUT_HEADERS=6.1.0-100-simulated

# A placeholder daemon (PROGRAM UNIT WHAT): two FILE=CONTENT arguments of
# write_placeholder_deb, in SIM_FILES.
sim_daemon_files() {
  local program=$1 unit=$2 what=$3
  SIM_FILES=("usr/bin/$program=#!/bin/sh
# SIMULATED $program (clusterctl testbed): no GPU, no driver.
echo \"SIMULATED $program: would run $what\"
exec sleep infinity" "lib/systemd/system/$unit.service=[Unit]
Description=SIMULATED $what (clusterctl testbed placeholder)
[Service]
ExecStart=/usr/bin/$program
[Install]
WantedBy=multi-user.target")
}

# The SIMULATED DKMS of the kernel module packages (VERSION LICENCE), in
# SIM_FILES: configure builds a placeholder module for every kernel with
# headers; removal takes them away.
sim_dkms_files() {
  local upstream=${1%%-*} licence=$2
  SIM_FILES=("DEBIAN/postinst=#!/bin/sh
set -e
# SIMULATED DKMS (clusterctl testbed): nvidia $upstream for every kernel with headers.
[ \"\$1\" = configure ] || exit 0
for image in /boot/vmlinuz-*; do
  [ -e \"\$image\" ] || continue
  kernel=\${image#/boot/vmlinuz-}
  if [ ! -f /lib/modules/\$kernel/build/Makefile ]; then
    echo \"Module build for kernel \$kernel was skipped since the kernel headers for this kernel do not seem to be installed. (SIMULATED DKMS)\"
    continue
  fi
  mkdir -p /lib/modules/\$kernel/updates/dkms /var/lib/dkms/nvidia/$upstream/\$kernel/x86_64/module
  printf 'SIMULATED nvidia.ko (clusterctl testbed)\\nversion=%s\\nlicense=%s\\n' $upstream '$licence' >/lib/modules/\$kernel/updates/dkms/nvidia.ko
  cp /lib/modules/\$kernel/updates/dkms/nvidia.ko /var/lib/dkms/nvidia/$upstream/\$kernel/x86_64/module/nvidia.ko
  echo \"nvidia/$upstream, \$kernel, x86_64: installed (SIMULATED DKMS)\"
done" "DEBIAN/prerm=#!/bin/sh
rm -f /lib/modules/*/updates/dkms/nvidia.ko
rm -rf /var/lib/dkms/nvidia/$upstream
exit 0")
}

build_nvidia_placeholders() {
  local dir=$1 arch=$2 version
  local -a SIM_FILES
  export PLACEHOLDER_VENDOR=NVIDIA PLACEHOLDER_BUILDER=nvidia_repo.sh
  export PLACEHOLDER_FOR="the testbed's local repository (a site's mirror of NVIDIA's CUDA repository)"
  for version in "${NVIDIA_SIM_VERSIONS[@]}"; do
    local common="nvidia-smi (= $version), libcuda1 (= $version), nvidia-persistenced (= $version)"
    write_placeholder_deb "$dir" cuda-drivers-550 "$version" "$arch" "nvidia-kernel-dkms (= $version), $common" \
      "the driver branch 550 with proprietary kernel modules"
    write_placeholder_deb "$dir" nvidia-open-550 "$version" "$arch" "nvidia-kernel-open-dkms (= $version), $common" \
      "the driver branch 550 with open kernel modules"
    sim_dkms_files "$version" NVIDIA
    write_placeholder_deb "$dir" nvidia-kernel-dkms "$version" "$arch" "" "the proprietary kernel modules, built by DKMS" \
      "${SIM_FILES[@]}"
    sim_dkms_files "$version" "Dual MIT/GPL"
    write_placeholder_deb "$dir" nvidia-kernel-open-dkms "$version" "$arch" "" "the open kernel modules, built by DKMS" \
      "${SIM_FILES[@]}"
    write_placeholder_deb "$dir" nvidia-smi "$version" "$arch" "python3" "the System Management Interface" \
      "@usr/bin/nvidia-smi=$TESTBED_HOME/lib/nvidia_smi_simulated.py"
    write_placeholder_deb "$dir" libcuda1 "$version" "$arch" "" "the CUDA driver library" \
      "usr/lib/x86_64-linux-gnu/libcuda.so.1.SIMULATED=SIMULATED libcuda (clusterctl testbed)"
    sim_daemon_files nvidia-persistenced nvidia-persistenced "the persistence daemon"
    write_placeholder_deb "$dir" nvidia-persistenced "$version" "$arch" "" "the persistence daemon" "${SIM_FILES[@]}"
  done
  for version in "${NVIDIA_SIM_FABRIC_VERSIONS[@]}"; do
    sim_daemon_files nv-fabricmanager nvidia-fabricmanager "the NVSwitch fabric manager"
    write_placeholder_deb "$dir" nvidia-fabricmanager-550 "$version" "$arch" "" "the NVSwitch fabric manager" "${SIM_FILES[@]}"
    write_placeholder_deb "$dir" libnvidia-nscq-550 "$version" "$arch" "" "the NVSwitch configuration and query library"
  done
  sim_daemon_files nv-hostengine nvidia-dcgm "DCGM's host engine"
  write_placeholder_deb "$dir" datacenter-gpu-manager 3.3.9+simulated "$arch" "" "Data Center GPU Manager" "${SIM_FILES[@]}"
  write_placeholder_deb "$dir" datacenter-gpu-manager-exporter 3.3.9-3.6.1+simulated "$arch" \
    "datacenter-gpu-manager, python3" "the DCGM exporter for Prometheus" \
    "@usr/bin/dcgm-exporter=$TESTBED_HOME/lib/dcgm_exporter_simulated.py" \
    "lib/systemd/system/nvidia-dcgm-exporter.service=[Unit]
Description=SIMULATED NVIDIA DCGM exporter (clusterctl testbed placeholder)
[Service]
ExecStart=/usr/bin/dcgm-exporter
[Install]
WantedBy=multi-user.target"
  local toolkit
  for toolkit in 12.4.1-1+simulated 12.6.3-1+simulated; do
    local minor=${toolkit%.*-*}  # 12.4
    write_placeholder_deb "$dir" "cuda-toolkit-${minor/./-}" "$toolkit" "$arch" "" "the CUDA toolkit $minor" \
      "usr/local/cuda-$minor/bin/nvcc=#!/bin/sh
echo 'SIMULATED nvcc $minor (clusterctl testbed)'" \
      "DEBIAN/postinst=#!/bin/sh
update-alternatives --install /usr/local/cuda cuda /usr/local/cuda-$minor ${minor/./}" \
      "DEBIAN/prerm=#!/bin/sh
update-alternatives --remove cuda /usr/local/cuda-$minor || true"
  done
  export PLACEHOLDER_VENDOR=Debian PLACEHOLDER_FOR="the testbed's GPU nodes (a kernel to boot next)"
  write_placeholder_deb "$dir" "linux-image-$NVIDIA_SIM_KERNEL" 6.1.0-99 "$arch" "" "a kernel image" \
    "boot/vmlinuz-$NVIDIA_SIM_KERNEL=SIMULATED kernel image (clusterctl testbed)"
  write_placeholder_deb "$dir" "linux-headers-$NVIDIA_SIM_KERNEL" 6.1.0-99 "$arch" "" "the kernel's headers" \
    "lib/modules/$NVIDIA_SIM_KERNEL/build/Makefile=# SIMULATED kernel headers (clusterctl testbed)"
  write_placeholder_deb "$dir" "linux-image-$NVIDIA_SIM_KERNEL_WITHOUT_HEADERS" 6.1.0-100 "$arch" "" "a kernel image without headers" \
    "boot/vmlinuz-$NVIDIA_SIM_KERNEL_WITHOUT_HEADERS=SIMULATED kernel image (clusterctl testbed)"
  unset PLACEHOLDER_VENDOR PLACEHOLDER_BUILDER PLACEHOLDER_FOR
}

# The kernel a simulated GPU node has installed, as a fresh node would.
install_sim_kernel() {
  local root=$1 deb
  deb=$(ls "$(local_repo_dir)/packages/linux-image-${NVIDIA_SIM_KERNEL}_"*.deb)
  cp "$deb" "$root/tmp/sim-kernel.deb"
  chroot "$root" dpkg -i /tmp/sim-kernel.deb >/dev/null
  rm -f "$root/tmp/sim-kernel.deb"
}

# module_bytes FILE: a kernel module's bytes, decompressed.
module_bytes() {
  case "$1" in
    *.xz) xz -dc "$1" ;;
    *.zst) zstd -dc "$1" ;;
    *.gz) gzip -dc "$1" ;;
    *) cat "$1" ;;
  esac
}

# module_taint LICENCE: /sys/module/M/taint of an out-of-tree module with
# that licence, as the kernel sets it (kernel/module: license_is_gpl_compatible).
module_taint() {
  case $1 in
    "GPL" | "GPL v2" | "GPL and additional rights" | "Dual BSD/GPL" | "Dual MIT/GPL" | "Dual MPL/GPL") echo O ;;
    *) echo PO ;;
  esac
}

# SIMULATED loaded modules, derived before each boot of a GPU node from what
# it has installed, as its kernel would load them: nouveau claims the GPUs
# unless modprobe.d blacklists it; otherwise nvidia loads when a module was
# built for the kernel the node boots (the newest in /boot), at the version
# that module holds, with the taint flags the kernel gives a module of its
# licence (P: not GPL-compatible; O: out of tree). The node sees the result
# as /sys/module (its other entries mirror the machine's), with
# /sys/module/nvidia/SIMULATED.
derive_loaded_modules() {
  local root=$1 out=$2 module kernel ko version
  rm -rf "$out"
  mkdir -p "$out"
  for module in /sys/module/*; do mkdir -p "$out/$(basename "$module")"; done
  if ! grep -qsE '^(blacklist nouveau|install nouveau /bin/false)' "$root"/etc/modprobe.d/*.conf; then
    mkdir -p "$out/nouveau"
    echo "SIMULATED: nouveau claims the GPUs (not blacklisted)" >"$out/nouveau/SIMULATED"
    return 0
  fi
  # (The supervisor runs this under set -e and pipefail: no pipeline may fail.)
  kernel=$( (ls "$root/boot" 2>/dev/null || true) | sed -n 's/^vmlinuz-//p' | sort -V | tail -n 1)
  [ -n "$kernel" ] || return 0
  [ -d "$root/lib/modules/$kernel" ] || return 0
  # nvidia.ko from NVIDIA's packages (and these simulated ones),
  # nvidia-current.ko from Debian's nvidia-kernel-dkms.
  ko=$(find "$root/lib/modules/$kernel" \( -name 'nvidia.ko*' -o -name 'nvidia-current.ko*' \) | head -n 1)
  [ -n "$ko" ] || return 0
  # The version string of the module's .modinfo section, read without kmod
  # (not on every machine): NUL-separated in a real module, a line in the
  # simulated placeholder.
  version=$(module_bytes "$ko" | tr '\0' '\n' | sed -n 's/^version=//p' | head -n 1 || true)
  [ -n "$version" ] || return 0
  mkdir -p "$out/nvidia"
  echo "$version" >"$out/nvidia/version"
  module_taint "$(module_bytes "$ko" | tr '\0' '\n' | sed -n 's/^license=//p' | head -n 1 || true)" >"$out/nvidia/taint"
  echo "SIMULATED: derived by the testbed at boot from $kernel's ${ko#"$root"}" >"$out/nvidia/SIMULATED"
}
