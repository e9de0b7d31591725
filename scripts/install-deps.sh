#!/usr/bin/env bash
# Installs what clusterctl needs to build and test, from Debian/Ubuntu packages.
# Only missing packages are installed; nothing is downloaded outside apt.
#
# RHEL/Rocky/Alma equivalents (dnf, with EPEL and CRB enabled) are listed in
# docs/building.md.
set -euo pipefail

BUILD_PACKAGES=(
  g++ cmake make pkg-config
  ccache  # every build compiles through it (cmake/Ccache.cmake)
  libssh-dev libssl-dev libyaml-cpp-dev libsqlite3-dev libboost-dev libspdlog-dev libfmt-dev
  doctest-dev nlohmann-json3-dev libcli11-dev
  python3  # tests/exporters: the Slurm exporter is a Python script
  man-db zsh  # tests/cli: the generated man page renders without warnings, the zsh completion parses
  shellcheck  # tests/roles/shell_scripts_test.cc: every script the roles put on a node is linted
  # The aarch64 node programs (cmake/Aarch64NodePrograms.cmake): the cross
  # compiler (it brings the arm64 libc and libstdc++ to link statically; the
  # two programs need no other arm64 library: nlohmann/json and doctest are
  # headers, the same for every architecture), and qemu-user to run their
  # tests (tests/aarch64_node_test.sh runs it explicitly: no binfmt_misc).
  g++-aarch64-linux-gnu qemu-user-static
  ipmitool  # clusterctl power runs it on the controller to reach the nodes' BMCs
  openipmi  # tests/cli/cases/power.sh: ipmi_sim, real IPMI-over-LAN BMCs on loopback
)
# The testbed (tests/testbed): nspawn containers on a bridge, an apt proxy;
# spank.h (libslurm-dev) and a C compiler for the SIMULATED pyxis plugin of
# its local repository (tests/testbed/lib/container_repo.sh).
TESTBED_PACKAGES=(
  debootstrap systemd-container iproute2 apt-cacher-ng openssh-client procps util-linux sqlite3 python3
  libslurm-dev gcc
)

# The daemon's tests (tests/e2e/serve_test.sh) and benchmark (bench/serve-load.sh):
# a real browser for the status page, promtool for /metrics, an HTTP client,
# an HTTP load generator, dpkg-dev for the package the daemon's unit is
# tested from (scripts/package.sh: dpkg-shlibdeps), and lintian, which checks
# that package (tests/package_test.sh).
DAEMON_PACKAGES=(chromium prometheus curl wrk dpkg-dev lintian)

# The fuzz targets (fuzz/, scripts/fuzz.sh): clang with libFuzzer and the sanitizers' runtimes.
FUZZ_PACKAGES=(clang libclang-rt-14-dev)

want=("${BUILD_PACKAGES[@]}")
for arg in "$@"; do
  case "$arg" in
    --testbed) want+=("${TESTBED_PACKAGES[@]}") ;;
    --fuzz) want+=("${FUZZ_PACKAGES[@]}") ;;
    --daemon) want+=("${DAEMON_PACKAGES[@]}") ;;
    *) echo "usage: $0 [--testbed] [--fuzz] [--daemon]" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo $0 $*) to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# apt-cacher-ng asks a debconf question on install; the testbed starts its own instance.
echo "apt-cacher-ng apt-cacher-ng/tunnelenable boolean false" | debconf-set-selections 2>/dev/null || true
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
