#!/usr/bin/env bash
# Prototype (issue 52): an arm64 Debian base image for the testbed, built on
# this x86_64 machine, and whether systemd boots it in systemd-nspawn under
# qemu-user emulation. Measures each stage; changes nothing of the testbed's
# own images or nodes. NOT part of `testbed prepare` or CI (docs/building.md,
# "arm64 node image (prototype)").
#
#   sudo flock /work/testbed.lock bench/arm64-base-image.sh fetch   # stage 1, through the testbed's apt proxy
#   sudo bench/arm64-base-image.sh second                            # stage 2 under qemu-user (no network)
#   sudo bench/arm64-base-image.sh boot                              # systemd-nspawn -b on the tree
#
# The apt proxy is the testbed's (tests/testbed/lib/proxy.sh: apt-cacher-ng
# on the testbed bridge, its cache in $TESTBED_CACHE shared with the x86_64
# images), on a bridge and state directory of its own (TESTBED_PREFIX ctba,
# subnet 10.213.99), brought down again at the end of `fetch`; hold the
# machine's testbed lock around it. binfmt_misc: `second` mounts it when it
# is not mounted and registers qemu-aarch64 from qemu-user-static's
# /usr/lib/binfmt.d/qemu-aarch64.conf (flag F: the interpreter is opened
# once, so it works inside the chroot and the container) when no
# qemu-aarch64 entry exists; other entries are left alone.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
export TESTBED_STATE=${TESTBED_STATE:-/var/lib/clusterctl-testbed-arm64}
export TESTBED_PREFIX=${TESTBED_PREFIX:-ctba}
export TESTBED_SUBNET=${TESTBED_SUBNET:-10.213.99}
# shellcheck source=tests/testbed/lib/common.sh
. "$HERE/tests/testbed/lib/common.sh"
# shellcheck source=tests/testbed/lib/network.sh
. "$HERE/tests/testbed/lib/network.sh"
# shellcheck source=tests/testbed/lib/proxy.sh
. "$HERE/tests/testbed/lib/proxy.sh"
# shellcheck source=tests/testbed/lib/base.sh
. "$HERE/tests/testbed/lib/base.sh"

WORK=${ARM64_WORK:-/var/tmp/clusterctl-arm64-prototype}
ROOT=$WORK/root
mkdir -p "$WORK"

stamp() { printf '%s %s\n' "$(date -u '+%F %T')" "$*" | tee -a "$WORK/times.log" >&2; }

fetch() {
  [ "$(id -u)" -eq 0 ] || die "run as root"
  rm -rf "$ROOT"
  ensure_bridge
  ensure_proxy
  local started rc=0
  started=$(date +%s.%N)
  http_proxy=$(proxy_url) debootstrap --arch=arm64 --foreign --variant=minbase --include="$BASE_PACKAGES" \
    "$TESTBED_SUITE" "$ROOT" "$TESTBED_MIRROR" >"$WORK/debootstrap-1.log" 2>&1 || rc=$?
  stamp "stage 1 (debootstrap --arch=arm64 --foreign, $TESTBED_SUITE, through $(proxy_url)): exit $rc," \
    "$(echo "$(date +%s.%N) - $started" | bc) s, $(du -sm "$ROOT" | cut -f1) MiB"
  stop_proxy
  remove_bridge
  [ "$rc" -eq 0 ] || { tail -20 "$WORK/debootstrap-1.log" >&2; exit "$rc"; }
}

ensure_binfmt() {
  local dir=/proc/sys/fs/binfmt_misc
  if [ ! -e "$dir/register" ]; then
    mount -t binfmt_misc binfmt_misc "$dir"
    stamp "mounted binfmt_misc at $dir"
  fi
  if [ ! -e "$dir/qemu-aarch64" ]; then
    grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf >"$dir/register"
    stamp "registered qemu-aarch64: $(tr '\n' ' ' <"$dir/qemu-aarch64")"
  fi
}

second() {
  [ -x "$ROOT/debootstrap/debootstrap" ] || die "no first stage in $ROOT (fetch first)"
  ensure_binfmt
  cp /usr/bin/qemu-aarch64-static "$ROOT/usr/bin/"
  local started rc=0
  started=$(date +%s.%N)
  chroot "$ROOT" /debootstrap/debootstrap --second-stage >"$WORK/debootstrap-2.log" 2>&1 || rc=$?
  stamp "stage 2 (debootstrap --second-stage under qemu-aarch64): exit $rc, load $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(echo "$(date +%s.%N) - $started" | bc) s, $(du -sm "$ROOT" | cut -f1) MiB"
  [ "$rc" -eq 0 ] || { tail -20 "$WORK/debootstrap-2.log" >&2; exit "$rc"; }
  stamp "uname -m in the tree: $(chroot "$ROOT" uname -m); $(chroot "$ROOT" dpkg --print-architecture)"
}

# Boots the tree (an overlay, so the tree stays as built) until systemd says
# it reached multi-user.target or BOOT_WAIT seconds pass, then powers it off.
boot() {
  ensure_binfmt
  local upper=$WORK/boot-upper work=$WORK/boot-work merged=$WORK/boot-merged log=$WORK/boot.log
  rm -rf "$upper" "$work" && mkdir -p "$upper" "$work" "$merged"
  mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$upper,workdir=$work" "$merged"
  : >"$merged/etc/machine-id"
  local started pid reached=""
  started=$(date +%s.%N)
  systemd-nspawn -D "$merged" --register=no --keep-unit --private-network --resolv-conf=off --timezone=off --link-journal=no \
    --console=read-only -M arm64proto -b </dev/null >"$log" 2>&1 &
  pid=$!
  for _ in $(seq "${BOOT_WAIT:-600}"); do
    if grep -q 'Reached target.*Multi-User' "$log"; then reached=yes; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  stamp "systemd-nspawn -b (arm64 under qemu-user): multi-user.target ${reached:-NOT reached}," \
    "$(echo "$(date +%s.%N) - $started" | bc) s; failed units: $(grep -c 'FAILED' "$log" || true)"
  kill -TERM "$pid" 2>/dev/null || true  # nspawn passes SIGTERM on as a poweroff
  for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  umount "$merged"
}

case "${1:-}" in
  fetch) fetch ;;
  second) second ;;
  boot) boot ;;
  *) echo "usage: $0 fetch|second|boot" >&2; exit 2 ;;
esac
