# Shared settings and helpers for the testbed.

TESTBED_STATE=${TESTBED_STATE:-/var/lib/clusterctl-testbed}
TESTBED_CACHE=${TESTBED_CACHE:-/var/cache/clusterctl-testbed}
TESTBED_SUBNET=${TESTBED_SUBNET:-10.213.77}
# Names of the links and namespaces this testbed creates start with the prefix
# (at most 4 characters: link names are limited to 15).
TESTBED_PREFIX=${TESTBED_PREFIX:-ctb}
TESTBED_BRIDGE=${TESTBED_BRIDGE:-${TESTBED_PREFIX}0}
# The Debian release the nodes run (up/prepare --release). One cluster is
# one release: the one its first `up` chose, recorded until `down`, so every
# later command (start, a node's reboot) mounts that release's base image.
TESTBED_RELEASES="bookworm trixie"
TESTBED_SUITE=bookworm
if [ -f "$TESTBED_STATE/release" ]; then TESTBED_SUITE=$(cat "$TESTBED_STATE/release"); fi
TESTBED_MIRROR=${TESTBED_MIRROR:-http://deb.debian.org/debian}
TESTBED_SECURITY_MIRROR=${TESTBED_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
PROXY_PORT=3142
BRIDGE_ADDRESS="$TESTBED_SUBNET.1"
MAX_NODES=200

log() { printf 'testbed: %s\n' "$*" >&2; }
die() { printf 'testbed: error: %s\n' "$*" >&2; exit 1; }

require_root() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, mounts and containers need it)"
}

# Serialises commands that change the testbed.
with_lock() {
  mkdir -p "$TESTBED_STATE"
  exec 9>"$TESTBED_STATE/.lock"
  flock -w 600 9 || die "another testbed command holds $TESTBED_STATE/.lock"
  "$@"
}

node_name() { printf 'node%02d' "$1"; }
node_index() {
  [[ $1 =~ ^node0*([1-9][0-9]*)$ ]] || die "'$1' is not a node name (node01, node02, ...)"
  echo "${BASH_REMATCH[1]}"
}
node_address() { echo "$TESTBED_SUBNET.$((10 + $1))"; }
node_dir() { echo "$TESTBED_STATE/nodes/$1"; }
# --backup-controller: the machine's directory bound into node01 and node02
# at SHARED_MOUNT, a SIMULATED shared file system (node.sh, shared_nspawn_args).
shared_dir() { echo "$TESTBED_STATE/shared"; }
SHARED_MOUNT=/srv/simulated-shared
netns_name() { echo "$TESTBED_PREFIX-$1"; }
veth_name() { echo "$TESTBED_PREFIX-$1"; }

require_node() {
  local node=$1
  node_index "$node" >/dev/null
  [ -d "$(node_dir "$node")" ] || die "no such node: $node (see: testbed status)"
}

# Existing node names, sorted.
existing_nodes() {
  [ -d "$TESTBED_STATE/nodes" ] || return 0
  find "$TESTBED_STATE/nodes" -mindepth 1 -maxdepth 1 -type d -name 'node*' -printf '%f\n' | sort
}

# A live (not zombie) process.
pid_alive() {
  [ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || return 1
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)
  [ "$state" != Z ] && [ "$state" != X ]
}

# Pid files hold "PID STARTTIME" (field 22 of /proc/PID/stat), so a pid reused
# by another process after a host reboot is never mistaken for ours.
process_start_time() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
record_pid() { echo "$2 $(process_start_time "$2")" >"$1"; }
read_pid() {
  [ -f "$1" ] || return 0
  local pid start
  read -r pid start <"$1" || true
  [ -n "${pid:-}" ] || return 0
  if [ -z "${start:-}" ] || [ "$(process_start_time "$pid")" = "$start" ]; then echo "$pid"; fi
}

# wait_for_listener ADDRESS PORT: true once something accepts TCP there (5 s at most).
wait_for_listener() {
  local i
  for i in $(seq 50); do
    if (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

# retry_for SECONDS CMD...: runs CMD until it succeeds, every 0.2 s for up
# to SECONDS; its last status. For what the kernel finishes a moment after
# a process dies (a network namespace still mounted in a dying container's
# mount namespace, a device still held).
retry_for() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# stop_recorded PIDFILE: ends the process a pid file records (TERM, then
# KILL after 5 s) and removes the file. A process that ends on its own
# between the check and the kill is not an error.
stop_recorded() {
  local pid
  pid=$(read_pid "$1")
  if pid_alive "$pid"; then
    kill "$pid" 2>/dev/null || true
    local i
    for i in $(seq 50); do pid_alive "$pid" || break; sleep 0.1; done
    if pid_alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$1"
}

ssh_key() { echo "$TESTBED_STATE/ssh/id_ed25519"; }

ssh_options() {
  echo "-i $(ssh_key) -o UserKnownHostsFile=$TESTBED_STATE/ssh/known_hosts -o StrictHostKeyChecking=accept-new \
-o BatchMode=yes -o ConnectTimeout=5 -o LogLevel=ERROR"
}

now_ms() { date +%s%3N; }

# --release NAME: a release the testbed can boot, or a usage error.
check_release() {
  case " $TESTBED_RELEASES " in
    *" $1 "*) ;;
    *) die "--release must be one of: $TESTBED_RELEASES (got '$1')" ;;
  esac
}
