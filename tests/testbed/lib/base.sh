# The base root file system: debootstrap'ed once, cached under
# $TESTBED_CACHE/base/<key> where the key hashes everything that shapes it
# (suite, mirror, packages, setup below, and a foreign architecture's own
# setup). Nodes mount it read-only as the lower layer of an overlay, so
# `down` never touches it. An image of another architecture than the
# machine's (arm64: `up --arm64-nodes`, `prepare --arch arm64`) is built and
# booted under qemu-user (emulation.sh).

BASE_PACKAGES=systemd,systemd-sysv,dbus,openssh-server,iproute2,python3,ca-certificates,sudo,kmod,procps,less
# An emulated image leaves python3 out: on a node it serves only the
# SIMULATED GPU tools, which are built for the machine's architecture (`up
# --arm64-nodes` refuses --gpus), and a role that needs it installs it
# (slurm-exporter). Under qemu-user its byte-compiling is a large part of
# the arm64 image's second stage (254 s without it on an idle machine; 365 s
# with it, measured at load 2-7: docs/building.md).
EMULATED_BASE_PACKAGES=${BASE_PACKAGES/,python3/}
# Bump when base_setup changes what it writes.
BASE_SETUP_VERSION=4

# The machine's own architecture, in Debian's names (amd64).
native_arch() { dpkg --print-architecture; }

# base_key [ARCH]: the machine's own architecture keeps the key it always
# had (its cached images stay valid); another one adds its name and the
# version of emulated_image_setup.
base_key() {
  local arch=${1:-$(native_arch)} extra=""
  [ "$arch" = "$(native_arch)" ] || extra=" $arch $EMULATED_SETUP_VERSION"
  echo "$TESTBED_SUITE $TESTBED_MIRROR $TESTBED_SECURITY_MIRROR $(base_packages "$arch") $BASE_SETUP_VERSION$extra" |
    sha256sum | cut -c1-16
}

# base_packages ARCH: what debootstrap includes for ARCH (above).
base_packages() {
  if [ "$1" = "$(native_arch)" ]; then echo "$BASE_PACKAGES"; else echo "$EMULATED_BASE_PACKAGES"; fi
}

base_root() { echo "$TESTBED_CACHE/base/$(base_key "${1:-}")/root"; }

# Site-independent setup shared by every node.
base_setup() {
  local root=$1
  cat >"$root/etc/apt/sources.list" <<SOURCES
deb $TESTBED_MIRROR $TESTBED_SUITE main
deb $TESTBED_MIRROR $TESTBED_SUITE-updates main
deb $TESTBED_SECURITY_MIRROR $TESTBED_SUITE-security main
SOURCES
  # Each node gets its own host keys and machine id in its overlay.
  rm -f "$root"/etc/ssh/ssh_host_*
  : >"$root/etc/machine-id"
  # A non-root admin with passwordless sudo, to exercise privilege escalation.
  chroot "$root" useradd --create-home --shell /bin/bash admin
  echo 'admin ALL=(ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/admin"
  chmod 0440 "$root/etc/sudoers.d/admin"
  # Nodes have no DNS; apt reaches mirrors through the proxy by name.
  : >"$root/etc/resolv.conf"
  # Quiet, fast boots: no getty fighting over the console log.
  chroot "$root" systemctl mask getty@tty1.service >/dev/null 2>&1 || true
  # Keep the cached .debs out of every node's overlay.
  echo 'Binary::apt::APT::Keep-Downloaded-Packages "false";' >"$root/etc/apt/apt.conf.d/90testbed-no-cache"
  # What makes a node's package work cheaper without changing what it does
  # (every test deploys on fresh nodes many times per run: docs/building.md):
  # - dpkg does not fsync each file it unpacks. A node's files live in this
  #   machine's page cache; a node's power-cut (testbed kill) or reboot
  #   never loses them, so the syncs bought nothing here (as in Debian's
  #   own container images).
  # - apt fetches and indexes no translated descriptions.
  # - the package lists of every source are current in the image, so a
  #   node's first apt-get update (clusterctl's, at its first package step)
  #   finds most of them unchanged instead of fetching and indexing all.
  echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/90testbed-unsafe-io"
  echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/90testbed-no-translations"
  chroot "$root" apt-get -o Acquire::http::Proxy="$(proxy_url)" update -qq >/dev/null ||
    log "warning: apt-get update in the base image failed; nodes fetch their lists at their first deploy"
}

# debootstrap_image ARCH TARGET LOG: the machine's own architecture in one
# go; another in debootstrap's two stages, the second run in a chroot under
# qemu-user (about 5 minutes of one core for arm64: docs/building.md).
debootstrap_image() {
  local arch=$1 target=$2 log=$3 started
  if [ "$arch" = "$(native_arch)" ]; then
    http_proxy=$(proxy_url) debootstrap --variant=minbase --include="$(base_packages "$arch")" \
      "$TESTBED_SUITE" "$target" "$TESTBED_MIRROR" >"$log" 2>&1
    return
  fi
  ensure_emulation "$arch"
  started=$(date +%s)
  http_proxy=$(proxy_url) debootstrap --arch="$arch" --foreign --variant=minbase --include="$(base_packages "$arch")" \
    "$TESTBED_SUITE" "$target" "$TESTBED_MIRROR" >"$log" 2>&1 || return 1
  log "$arch: debootstrap's first stage took $(($(date +%s) - started))s; its second stage runs under qemu-user"
  started=$(date +%s)
  chroot "$target" /debootstrap/debootstrap --second-stage >>"$log" 2>&1 || return 1
  log "$arch: the second stage took $(($(date +%s) - started))s"
}

# ensure_base [ARCH]: the base image of the testbed's release for ARCH (the
# machine's own unless given), built once.
ensure_base() {
  local arch=${1:-$(native_arch)} root dir lock=base.lock wait=900
  root=$(base_root "$arch")
  dir=$(dirname "$root")
  [ -f "$dir/complete" ] && return 0
  # One builder at a time, even across testbeds sharing the cache. An
  # emulated image takes several times the x86_64 image's minutes and has a
  # lock of its own, so no x86_64 build waits for it.
  if [ "$arch" != "$(native_arch)" ]; then lock=base-$arch.lock wait=3600; fi
  mkdir -p "$TESTBED_CACHE"
  exec 8>"$TESTBED_CACHE/$lock"
  flock -w "$wait" 8 || die "another testbed is building the $arch base image"
  if [ -f "$dir/complete" ]; then exec 8>&-; return 0; fi
  command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/install-deps.sh --testbed)"
  log "building the $arch base image (once; cached in $dir)"
  rm -rf "$dir"
  mkdir -p "$dir"
  local started
  started=$(date +%s)
  if ! debootstrap_image "$arch" "$root.partial" "$dir/debootstrap.log"; then
    tail -20 "$dir/debootstrap.log" >&2
    die "debootstrap failed; see $dir/debootstrap.log"
  fi
  base_setup "$root.partial"
  [ "$arch" = "$(native_arch)" ] || emulated_image_setup "$root.partial"
  mv "$root.partial" "$root"
  touch "$dir/complete"
  exec 8>&-
  log "$arch base image built in $(($(date +%s) - started))s"
}
