# The base root file system: debootstrap'ed once, cached under
# $TESTBED_CACHE/base/<key> where the key hashes everything that shapes it
# (suite, mirror, packages, setup below). Nodes mount it read-only as the
# lower layer of an overlay, so `down` never touches it.

BASE_PACKAGES=systemd,systemd-sysv,dbus,openssh-server,iproute2,python3,ca-certificates,sudo,kmod,procps,less
# Bump when base_setup changes what it writes.
BASE_SETUP_VERSION=4

base_key() {
  echo "$TESTBED_SUITE $TESTBED_MIRROR $TESTBED_SECURITY_MIRROR $BASE_PACKAGES $BASE_SETUP_VERSION" |
    sha256sum | cut -c1-16
}

base_root() { echo "$TESTBED_CACHE/base/$(base_key)/root"; }

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

ensure_base() {
  local root dir
  root=$(base_root)
  dir=$(dirname "$root")
  [ -f "$dir/complete" ] && return 0
  # One builder at a time, even across testbeds sharing the cache.
  mkdir -p "$TESTBED_CACHE"
  exec 8>"$TESTBED_CACHE/base.lock"
  flock -w 900 8 || die "another testbed is building the base image"
  if [ -f "$dir/complete" ]; then exec 8>&-; return 0; fi
  command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/install-deps.sh --testbed)"
  log "building the base image (once; cached in $dir)"
  rm -rf "$dir"
  mkdir -p "$dir"
  local started
  started=$(date +%s)
  if ! http_proxy=$(proxy_url) debootstrap --variant=minbase --include="$BASE_PACKAGES" \
      "$TESTBED_SUITE" "$root.partial" "$TESTBED_MIRROR" >"$dir/debootstrap.log" 2>&1; then
    tail -20 "$dir/debootstrap.log" >&2
    die "debootstrap failed; see $dir/debootstrap.log"
  fi
  base_setup "$root.partial"
  mv "$root.partial" "$root"
  touch "$dir/complete"
  exec 8>&-
  log "base image built in $(($(date +%s) - started))s"
}
