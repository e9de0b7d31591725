# NVIDIA's container packages for the testbed's local repository (tests/
# testbed/lib/local_repo.sh): what a site's mirror of NVIDIA's enroot, pyxis
# and container-toolkit releases is to its nodes, for the pyxis and
# nvidia-container-toolkit roles. Every package is SIMULATED, labelled like
# the driver's (nvidia_repo.sh): NVIDIA's names, versions ending in
# +simulated, descriptions starting with SIMULATED, /usr/share/doc/PKG/
# SIMULATED. No container ever runs:
#   enroot, enroot+caps   /usr/bin/enroot says it is simulated and fails on
#                     anything but `version` (import, create, start...);
#                     /etc/enroot/enroot.conf as NVIDIA ships it (commented)
#   nvslurm-plugin-pyxis   a real SPANK plugin built here from
#                     spank_pyxis_simulated.c against this machine's spank.h
#                     (Debian's libslurm-dev, the nodes' Slurm release): srun
#                     --help lists pyxis's options, and a job or step using
#                     one fails with "SIMULATED: pyxis is not available";
#                     /usr/share/pyxis/pyxis.conf names it for plugstack.conf.d
#   nvidia-container-toolkit, nvidia-container-toolkit-base,
#   libnvidia-container-tools, libnvidia-container1
#                     nvidia-ctk's `cdi generate` writes a CDI spec labelled
#                     SIMULATED of the node's simulated /dev/nvidiaN (no
#                     library, no driver behind them); anything else fails

CONTAINER_SIM_ENROOT=3.5.0-1+simulated
CONTAINER_SIM_PYXIS=0.20.0-1+simulated
CONTAINER_SIM_TOOLKIT=1.17.3-1+simulated

# The plugin, built into DIR (a file of the repository's cache key hashes the
# source and the spank.h it is built against).
build_sim_pyxis_plugin() {
  [ -f /usr/include/slurm/spank.h ] ||
    die "spank.h is missing: the SIMULATED pyxis plugin is built against Debian's libslurm-dev (scripts/install-deps.sh --testbed)"
  cc -shared -fPIC -O2 -Wall -Werror -o "$1/spank_pyxis.so" "$TESTBED_HOME/lib/spank_pyxis_simulated.c" ||
    die "the SIMULATED pyxis plugin did not build (tests/testbed/lib/spank_pyxis_simulated.c)"
}

sim_enroot_program() {
  cat <<'SH'
#!/bin/sh
# SIMULATED enroot (clusterctl testbed): no container runtime here.
case "$1" in
  version|--version) echo "3.5.0 (SIMULATED: clusterctl testbed placeholder)"; exit 0 ;;
esac
echo "SIMULATED enroot (clusterctl testbed): 'enroot $*' cannot run: no container runtime on this testbed" >&2
exit 1
SH
}

# nvidia-ctk: `cdi generate [--output=FILE]` lists the simulated GPUs'
# device files in a spec that says it is simulated.
sim_nvidia_ctk_program() {
  cat <<'SH'
#!/bin/sh
# SIMULATED nvidia-ctk (clusterctl testbed): no GPU, no driver, no library.
if [ "$1" = --version ]; then echo "NVIDIA Container Toolkit CLI version 1.17.3 (SIMULATED)"; exit 0; fi
if [ "$1 $2" != "cdi generate" ]; then
  echo "SIMULATED nvidia-ctk (clusterctl testbed): 'nvidia-ctk $*' is not available: no GPU and no driver here" >&2
  exit 9
fi
shift 2
out=""
for arg; do case "$arg" in --output=*) out=${arg#--output=} ;; esac; done
spec() {
  echo "# SIMULATED CDI spec (clusterctl testbed): the testbed's simulated GPUs; no driver or library backs them."
  echo "cdiVersion: 0.5.0"
  echo "kind: nvidia.com/gpu"
  echo "devices:"
  for dev in /dev/nvidia[0-9]*; do
    [ -e "$dev" ] || continue
    echo "  - name: \"${dev#/dev/nvidia}\""
    echo "    containerEdits:"
    echo "      deviceNodes:"
    echo "        - path: $dev"
  done
  echo "containerEdits: {}"
}
if [ -z "$out" ]; then spec; exit 0; fi
mkdir -p "$(dirname "$out")"
spec >"$out.tmp" && mv "$out.tmp" "$out"
echo "SIMULATED nvidia-ctk: wrote a SIMULATED CDI spec to $out" >&2
SH
}

build_container_placeholders() {
  local dir=$1 arch=$2 work multiarch
  work=$(mktemp -d)
  multiarch=$(cc -print-multiarch)
  build_sim_pyxis_plugin "$work"
  export PLACEHOLDER_VENDOR=NVIDIA PLACEHOLDER_BUILDER=container_repo.sh
  export PLACEHOLDER_FOR="the testbed's local repository (a site's mirror of NVIDIA's enroot, pyxis and container toolkit)"
  write_placeholder_deb "$dir" enroot "$CONTAINER_SIM_ENROOT" "$arch" "" "the enroot container utility" \
    "usr/bin/enroot=$(sim_enroot_program)" \
    "etc/enroot/enroot.conf=# SIMULATED enroot's default configuration (clusterctl testbed): every setting commented.
#ENROOT_RUNTIME_PATH        \${XDG_RUNTIME_DIR}/enroot
#ENROOT_CACHE_PATH          \${XDG_CACHE_HOME}/enroot
#ENROOT_DATA_PATH           \${XDG_DATA_HOME}/enroot" \
    "etc/enroot/hooks.d/.keep=" "etc/enroot/mounts.d/.keep=" "etc/enroot/environ.d/.keep="
  write_placeholder_deb "$dir" enroot+caps "$CONTAINER_SIM_ENROOT" "$arch" "enroot (= $CONTAINER_SIM_ENROOT)" \
    "enroot's helpers with file capabilities (unprivileged overlay and squashfs)"
  write_placeholder_deb "$dir" nvslurm-plugin-pyxis "$CONTAINER_SIM_PYXIS" "$arch" "enroot (>= 3.1)" \
    "the pyxis SPANK plugin for Slurm (SIMULATED: it refuses every container job)" \
    "@usr/lib/$multiarch/slurm/spank_pyxis.so=$work/spank_pyxis.so" \
    "usr/share/pyxis/pyxis.conf=required /usr/lib/$multiarch/slurm/spank_pyxis.so"
  write_placeholder_deb "$dir" libnvidia-container1 "$CONTAINER_SIM_TOOLKIT" "$arch" "" "the NVIDIA container runtime library" \
    "usr/lib/$multiarch/libnvidia-container.so.1.SIMULATED=SIMULATED libnvidia-container (clusterctl testbed)"
  write_placeholder_deb "$dir" libnvidia-container-tools "$CONTAINER_SIM_TOOLKIT" "$arch" \
    "libnvidia-container1 (>= $CONTAINER_SIM_TOOLKIT)" "the NVIDIA container runtime library's CLI" \
    "usr/bin/nvidia-container-cli=#!/bin/sh
echo 'SIMULATED nvidia-container-cli (clusterctl testbed): no GPU and no driver here' >&2
exit 9"
  write_placeholder_deb "$dir" nvidia-container-toolkit-base "$CONTAINER_SIM_TOOLKIT" "$arch" "" \
    "the NVIDIA Container Toolkit's nvidia-ctk" "usr/bin/nvidia-ctk=$(sim_nvidia_ctk_program)"
  write_placeholder_deb "$dir" nvidia-container-toolkit "$CONTAINER_SIM_TOOLKIT" "$arch" \
    "nvidia-container-toolkit-base (= $CONTAINER_SIM_TOOLKIT), libnvidia-container-tools (>= $CONTAINER_SIM_TOOLKIT)" \
    "the NVIDIA Container Toolkit"
  unset PLACEHOLDER_VENDOR PLACEHOLDER_BUILDER PLACEHOLDER_FOR
  rm -rf "$work"
}
