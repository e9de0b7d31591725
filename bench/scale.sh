#!/usr/bin/env bash
# Scale benchmark: N hosts simulated by one sshd listening on every loopback
# address (127.0.x.y) of one testbed node (a real Debian node with systemd,
# so the service query is real). clusterctl runs on this machine inside that
# node's network namespace: the addresses exist nowhere else.
#
# For each N: `facts`, a converging first deploy of bench/scale/bench-small.yaml
# (not reported), the no-op `deploy` (contacts no node: every step's recorded
# input is current) and `deploy --verify` (checks every step on every host).
# Reports wall time, controller CPU per host, controller peak RSS (and per host).
#   sudo bench/scale.sh [N ...]      (default: 10 100 1000)
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "scale benchmark: run as root (network namespaces)"; exit 77; }
export TESTBED_STATE=/var/lib/clusterctl-testbed-scale TESTBED_PREFIX=ctsc TESTBED_SUBNET=10.213.81
TB=$(realpath tests/testbed/testbed)
CLUSTERCTL=$(realpath build/clusterctl)
WORK=$(mktemp -d /tmp/clusterctl-scale-XXXXXX)
trap '$TB down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT  # a timeout's SIGTERM still runs the EXIT trap (the testbed goes down)
SIZES=("$@")
[ $# -eq 0 ] && SIZES=(10 100 1000)
NETNS="$TESTBED_PREFIX-node01"

$TB down >/dev/null 2>&1
$TB up 1 >/dev/null 2>&1 || { echo "testbed up failed"; exit 1; }
# The node's sshd takes all connections at once (the default MaxStartups
# 10:30:100 would refuse most of 1000 simultaneous handshakes).
$TB ssh node01 "printf 'MaxStartups 4000:30:8000\nMaxSessions 10\n' >/etc/ssh/sshd_config.d/clusterctl-bench.conf && systemctl reload ssh"
mkdir -p "$WORK/roles"
cp bench/scale/bench-small.yaml "$WORK/roles/"

# write_inventory N FILE: hosts h0001.. at 127.0.x.y, 250 per /24, group bench.
write_inventory() {
  local count=$1 file=$2 first=1 block=0
  {
    echo "version: 1"
    echo "cluster: scale"
    echo "connection: {user: root, key_file: $TESTBED_STATE/ssh/id_ed25519, host_key_policy: accept-new, connect_timeout: 30}"
    echo "hosts:"
    while [ "$first" -le "$count" ]; do
      local last=$((first + 249))
      [ "$last" -gt "$count" ] && last=$count
      printf '  h[%04d-%04d]:\n    address: 127.0.%d.[1-%d]\n' "$first" "$last" "$((block + 1))" "$((last - first + 1))"
      first=$((last + 1))
      block=$((block + 1))
    done
    echo "groups:"
    echo "  bench:"
    echo "    hosts: h[0001-$(printf '%04d' "$count")]"
  } >"$file"
}

# measure COMMAND...: "wall_s cpu_s max_rss_kib exit" of COMMAND run in the node's namespace, 15 min at most.
measure() {
  /usr/bin/time -f '%e %U %S %M %x' -o "$WORK/time" ip netns exec "$NETNS" timeout 900 "$@" >"$WORK/last.out" 2>&1
  awk '{ printf "%s %.2f %s %s\n", $1, $2 + $3, $4, $5 }' "$WORK/time" | tail -1
}

row() {  # row N WHAT wall cpu rss exit
  local n=$1 what=$2 wall=$3 cpu=$4 rss=$5 code=$6
  printf '%-6s %-34s %8s %12s %13s %13s  %s\n' "$n" "$what" "$wall" \
    "$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.2f", c * 1000 / n }')" \
    "$(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }')" "$((rss / n))" \
    "$([ "$code" = 0 ] && echo ok || echo "exit $code: $(grep -m1 -E 'unreachable|failed' "$WORK/last.out")")" |
    tee -a "${BENCH_RESULTS:-/dev/null}"
}

printf '%-6s %-34s %8s %12s %13s %13s  %s\n' HOSTS RUN WALL_S CPU_MS/HOST PEAK_RSS_MIB RSS_KIB/HOST RESULT |
  tee -a "${BENCH_RESULTS:-/dev/null}"
for n in "${SIZES[@]}"; do
  dir="$WORK/$n"
  mkdir -p "$dir"
  cp -r "$WORK/roles" "$dir/"
  write_inventory "$n" "$dir/inventory.yaml"
  # Warm-up: host keys recorded, agent installed (once: every host is the same node).
  ip netns exec "$NETNS" timeout 900 "$CLUSTERCTL" facts "$dir/inventory.yaml" >/dev/null 2>&1
  read -r wall cpu rss code < <(measure "$CLUSTERCTL" facts "$dir/inventory.yaml")
  row "$n" "facts" "$wall" "$cpu" "$rss" "$code"
  read -r wall cpu rss code < <(measure "$CLUSTERCTL" deploy --roles bench-small "$dir/inventory.yaml")
  row "$n" "first deploy (converges)" "$wall" "$cpu" "$rss" "$code"
  read -r wall cpu rss code < <(measure "$CLUSTERCTL" deploy --roles bench-small "$dir/inventory.yaml")
  row "$n" "no-op deploy" "$wall" "$cpu" "$rss" "$code"
  grep -q "changed=0 failed=0" "$WORK/last.out" || echo "warning: the no-op deploy changed something" >&2
  read -r wall cpu rss code < <(measure "$CLUSTERCTL" deploy --verify --roles bench-small "$dir/inventory.yaml")
  row "$n" "no-op deploy --verify (every step)" "$wall" "$cpu" "$rss" "$code"
done
