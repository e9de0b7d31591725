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
#   sudo [FORKS=100] bench/scale.sh [N ...]      (default: 10 100 1000)
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "scale benchmark: run as root (network namespaces)"; exit 77; }
export TESTBED_STATE=/var/lib/clusterctl-testbed-scale TESTBED_PREFIX=ctsc TESTBED_SUBNET=10.213.81
TB=$(realpath tests/testbed/testbed)
CLUSTERCTL=$(realpath build/clusterctl)
WORK=$(mktemp -d /tmp/clusterctl-scale-XXXXXX)
trap '$TB down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT  # a timeout's SIGTERM still runs the EXIT trap (the testbed goes down)
# Hosts in flight. All 1000 "hosts" are one node sharing this machine's two
# cores with the controller: with every host at once (clusterctl's default)
# its sshd thrashes and handshakes time out; 100 at a time keeps it busy
# without that. On real nodes each host does its share on its own CPU.
FORKS=${FORKS:-100}
SIZES=("$@")
[ $# -eq 0 ] && SIZES=(10 100 1000)
NETNS="$TESTBED_PREFIX-node01"

$TB down >/dev/null 2>&1
$TB up 1 >/dev/null 2>&1 || { echo "testbed up failed"; exit 1; }
# The node's sshd accepts many handshakes at once (the default MaxStartups
# 10:30:100 would refuse most of them). UsePAM no: with PAM every login
# registers a session with the node's one systemd-logind, which would
# serialise 1000 logins that 1000 real nodes each do on their own.
$TB ssh node01 "printf 'MaxStartups 4000:30:8000\nMaxSessions 10\nUsePAM no\n' >/etc/ssh/sshd_config.d/clusterctl-bench.conf && systemctl reload ssh"
mkdir -p "$WORK/roles"
cp bench/scale/bench-small.yaml "$WORK/roles/"

source bench/inventory.sh

machine_busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat; }

# measure COMMAND...: "wall_s cpu_s max_rss_kib exit machine_cpu_s" of COMMAND
# run in the node's namespace (15 min at most); the last is the CPU the whole
# machine spent meanwhile: controller, the node's sshd, agents and systemd.
measure() {
  local before after
  before=$(machine_busy_ticks)
  /usr/bin/time -f '%e %U %S %M %x' -o "$WORK/time" ip netns exec "$NETNS" timeout 900 "$@" >"$WORK/last.out" 2>&1
  after=$(machine_busy_ticks)
  awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" '{ printf "%s %.2f %s %s %.2f\n", $1, $2 + $3, $4, $5, t / hz }' \
    "$WORK/time" | tail -1
}

row() {  # row N WHAT wall cpu rss exit machine_cpu
  local n=$1 what=$2 wall=$3 cpu=$4 rss=$5 code=$6 machine=$7
  printf '%-6s %-34s %8s %12s %13s %13s %16s  %s\n' "$n" "$what" "$wall" \
    "$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.2f", c * 1000 / n }')" \
    "$(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }')" "$((rss / n))" \
    "$(awk -v m="$machine" -v n="$n" 'BEGIN { printf "%.1f", m * 1000 / n }')" \
    "$([ "$code" = 0 ] && echo ok || echo "exit $code: $(grep -m1 -E 'unreachable|failed' "$WORK/last.out")")" |
    tee -a "${BENCH_RESULTS:-/dev/null}"
}

printf '%-6s %-34s %8s %12s %13s %13s %16s  %s\n' HOSTS RUN WALL_S CPU_MS/HOST PEAK_RSS_MIB RSS_KIB/HOST MACHINE_MS/HOST RESULT |
  tee -a "${BENCH_RESULTS:-/dev/null}"
for n in "${SIZES[@]}"; do
  dir="$WORK/$n"
  mkdir -p "$dir"
  cp -r "$WORK/roles" "$dir/"
  write_loopback_inventory "$n" "$dir/inventory.yaml" "$TESTBED_STATE/ssh/id_ed25519" bench
  # Warm-up: host keys recorded, agent installed (once: every host is the same node).
  ip netns exec "$NETNS" timeout 900 "$CLUSTERCTL" facts --forks "$FORKS" "$dir/inventory.yaml" >/dev/null 2>&1
  read -r wall cpu rss code machine < <(measure "$CLUSTERCTL" facts --forks "$FORKS" "$dir/inventory.yaml")
  row "$n" "facts" "$wall" "$cpu" "$rss" "$code" "$machine"
  read -r wall cpu rss code machine < <(measure "$CLUSTERCTL" deploy --forks "$FORKS" --roles bench-small "$dir/inventory.yaml")
  row "$n" "first deploy (converges)" "$wall" "$cpu" "$rss" "$code" "$machine"
  read -r wall cpu rss code machine < <(measure "$CLUSTERCTL" deploy --forks "$FORKS" --roles bench-small "$dir/inventory.yaml")
  row "$n" "no-op deploy" "$wall" "$cpu" "$rss" "$code" "$machine"
  grep -q "changed=0 failed=0" "$WORK/last.out" || echo "warning: the no-op deploy changed something" >&2
  read -r wall cpu rss code machine < <(measure "$CLUSTERCTL" deploy --verify --forks "$FORKS" --roles bench-small "$dir/inventory.yaml")
  row "$n" "no-op deploy --verify (every step)" "$wall" "$cpu" "$rss" "$code" "$machine"
done
