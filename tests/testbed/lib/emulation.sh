# Nodes of another CPU architecture than the machine's (arm64 on x86_64:
# `up --arm64-nodes`): their image is built and booted under qemu-user,
# which the kernel runs for every arm64 program through binfmt_misc. The
# container is a real arm64 Debian (systemd, sshd, apt and dpkg of arm64);
# the CPU is emulated, so it is slow, and it is the machine's CPU that the
# node's /proc/cpuinfo shows (qemu 7.2 passes the file through).
#
# What emulation needs changed, and why:
# - binfmt_misc's qemu-aarch64 entry with flag F (the kernel opens the
#   interpreter when it is registered, so it runs inside chroots and
#   containers that have no qemu of their own). ensure_emulation mounts
#   binfmt_misc and registers the entry from qemu-user-static's own file
#   when there is none; it is the machine's, and `down` leaves it.
# - Credentials off (emulated_image_setup): systemd 252 sets up a unit's
#   credentials (LoadCredential=, SetCredential=) in a child cloned with
#   CLONE_NEWNS, and qemu-user refuses clone() with namespace flags (EINVAL),
#   so every such unit fails with 243/CREDENTIALS before it starts
#   ("Failed to set up credentials: Invalid argument"; the cause found in
#   systemd/systemd#21511). The image's units that name credentials get a drop-in that
#   empties both lists: they then run as on a node given no credentials,
#   which a testbed node never is. A unit installed later that names
#   credentials still fails on an emulated node, visibly.
# - chronyd without its seccomp filter (emulated_node_setup): qemu-user
#   refuses a guest's seccomp filter (it would apply to qemu's own system
#   calls), and Debian's /etc/default/chrony starts chronyd with -F 1, which
#   then stops at once ("Fatal error : Failed to load seccomp rules"). A
#   drop-in for chrony.service (installed later by the chrony role) starts
#   it with -F 0 instead. systemd's own SystemCallFilter= and sshd's sandbox
#   go on without a filter by themselves.
# - The halt signal (emulated_nspawn_args): qemu-user maps the host's
#   real-time signals to the guest's two numbers lower, so nspawn's
#   SIGRTMIN+3 (halt) reached the node's systemd as SIGRTMIN+1 (rescue
#   mode). nspawn sends SIGRTMIN+5 instead, which the node's systemd
#   receives as SIGRTMIN+3.

# Debian's architecture -> qemu-user's name of it (the kernel's, `uname -m`).
declare -A QEMU_ARCH=([arm64]=aarch64)
EMULATED_SETUP_VERSION=1

# ensure_emulation ARCH: the kernel runs ARCH's programs through qemu-user.
ensure_emulation() {
  local arch=$1 qemu entry dir=/proc/sys/fs/binfmt_misc
  qemu=${QEMU_ARCH[$arch]:-}
  [ -n "$qemu" ] || die "no emulation for $arch (the testbed emulates: ${!QEMU_ARCH[*]})"
  command -v "qemu-$qemu-static" >/dev/null ||
    die "qemu-$qemu-static is not installed (qemu-user-static: scripts/install-deps.sh)"
  if [ ! -e "$dir/register" ]; then
    mount -t binfmt_misc binfmt_misc "$dir" || die "cannot mount binfmt_misc at $dir"
  fi
  entry=$dir/qemu-$qemu
  if [ ! -e "$entry" ]; then
    grep -v '^#' "/usr/lib/binfmt.d/qemu-$qemu.conf" >"$dir/register" ||
      die "cannot register qemu-$qemu with binfmt_misc from /usr/lib/binfmt.d/qemu-$qemu.conf"
    log "registered qemu-$qemu with binfmt_misc ($(grep '^flags' "$entry"))"
  fi
  grep -q '^enabled' "$entry" || die "binfmt_misc's qemu-$qemu entry is disabled ($entry)"
  grep -q '^flags:.*F' "$entry" ||
    die "binfmt_misc's qemu-$qemu entry lacks flag F, so containers cannot run its interpreter ($entry)"
}

# emulated_image_setup ROOT: what an emulated node's image needs (above).
emulated_image_setup() {
  local root=$1 unit name
  while read -r unit; do
    name=$(basename "$unit")
    mkdir -p "$root/etc/systemd/system/$name.d"
    cat >"$root/etc/systemd/system/$name.d/50-testbed-qemu-user.conf" <<'CONF'
# clusterctl testbed, emulated node (qemu-user): systemd 252 sets up a unit's
# credentials in a child cloned with CLONE_NEWNS, which qemu-user refuses
# (EINVAL), so the unit would fail with 243/CREDENTIALS. No credentials here:
# the testbed passes none (tests/testbed/lib/emulation.sh).
[Service]
LoadCredential=
SetCredential=
CONF
  done < <(grep -lE '^(LoadCredential|SetCredential)=' "$root"/lib/systemd/system/*.service 2>/dev/null)
}

# emulated_node_setup ROOT: what an emulated node needs in its own overlay
# for packages a deploy installs (above).
emulated_node_setup() {
  local root=$1
  mkdir -p "$root/etc/systemd/system/chrony.service.d"
  cat >"$root/etc/systemd/system/chrony.service.d/50-testbed-qemu-user.conf" <<'CONF'
# clusterctl testbed, emulated node (qemu-user): qemu-user refuses a guest's
# seccomp filter, and chronyd -F 1 (Debian's /etc/default/chrony) then stops
# at start. Without the filter here (tests/testbed/lib/emulation.sh).
[Service]
EnvironmentFile=
Environment="DAEMON_OPTS=-F 0"
CONF
}

# emulated_nspawn_args ARCH: nspawn's options for a node of ARCH.
emulated_nspawn_args() {
  [ "$1" = "$(native_arch)" ] && return 0
  echo "--kill-signal=SIGRTMIN+5"
}
