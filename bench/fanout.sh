#!/usr/bin/env bash
# Benchmark: connect + facts for N hosts simulated by one sshd listening on
# loopback addresses (127.0.x.y) in a private network namespace.
# Reports hosts per second, controller CPU per host, peak memory, and the CPU
# the whole machine spent per host (the simulated nodes' sshd and agents run
# on the same cores as the controller, so they bound the wall time).
#   bench/fanout.sh [N ...]        (default: 10 100 1000)
set -u
cd "$(dirname "$0")/.."
source bench/lib.sh
trap bench_cleanup EXIT
[ "$(id -u)" -eq 0 ] || { echo "fanout benchmark: run as root (network namespace)"; exit 77; }
CLUSTERCTL=$(realpath build/clusterctl)
FORKS=${FORKS:-}  # empty: clusterctl's default (every host at once)
FORK_ARGS=()
[ -n "$FORKS" ] && FORK_ARGS=(--forks "$FORKS")
SIZES=("${@:-10 100 1000}")
[ $# -eq 0 ] && SIZES=(10 100 1000)

start_loopback_sshd || exit 1
printf '%-6s %-8s %-8s %-12s %-14s %-13s %-16s %s\n' HOSTS WALL_S HOSTS/S CTL_CPU_MS/H PEAK_RSS_MIB RSS_KIB/HOST MACHINE_CPU_MS/H RESULT
for n in "${SIZES[@]}"; do
  inventory="$BENCH_DIR/inventory-$n.yaml"
  write_loopback_inventory "$n" "$inventory" "$BENCH_DIR/client_key" compute
  # Warm-up: records host keys, installs the agent once; not measured.
  in_netns timeout 300 "$CLUSTERCTL" facts "${FORK_ARGS[@]}" "$inventory" >/dev/null 2>&1
  read -r wall user sys rss code machine < <(measure ip netns exec "$BENCH_NETNS" timeout 300 "$CLUSTERCTL" facts "${FORK_ARGS[@]}" "$inventory")
  ok=$(grep -c ": unreachable:\|: failed:" "$BENCH_DIR/last.err" || true)
  grep -m3 ": unreachable:\|: failed:" "$BENCH_DIR/last.err" >&2
  cpu_ms=$(awk -v u="$user" -v s="$sys" -v n="$n" 'BEGIN { printf "%.2f", (u + s) * 1000 / n }')
  rate=$(awk -v w="$wall" -v n="$n" 'BEGIN { printf "%.0f", n / (w > 0 ? w : 0.01) }')
  printf '%-6s %-8s %-8s %-12s %-14s %-13s %-16s %s\n' "$n" "$wall" "$rate" "$cpu_ms" \
    "$(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }')" "$((rss / n))" \
    "$(awk -v m="$machine" -v n="$n" 'BEGIN { printf "%.1f", m * 1000 / n }')" \
    "$([ "$code" = 0 ] && echo "all ok" || echo "exit $code, $ok unreachable")"
done
