#!/usr/bin/env bash
# Every benchmark in one command, ending with one table and the targets
# (docs/performance.md): the full stack against Ansible on 3 and 8 testbed
# nodes (no-op re-run, first deploy, resume after kill -9 at 50%), then the
# scale run on 10, 100 and 1000 loopback hosts. Each part has a time limit and
# removes its testbed when it ends; the scale part reaches only loopback
# addresses inside a testbed node's network namespace. Run as root:
#   sudo bench/run.sh              (RUNS=5 re-runs per median; about 25 minutes)
set -u
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench/run.sh: run as root (testbed, network namespaces)"; exit 77; }
RUNS=${RUNS:-5}
RESULTS=$(mktemp /tmp/clusterctl-bench-results-XXXXXX)
export BENCH_RESULTS=$RESULTS
trap 'rm -f "$RESULTS"' EXIT

for nodes in 3 8; do
  echo "== full stack against Ansible, $nodes nodes"
  timeout 3600 bench/ansible/compare-full.sh "$nodes" "$RUNS" || echo "compare-full $nodes: exit $?"
done
echo "== scale: loopback hosts"
timeout 3600 bench/scale.sh 10 100 1000 || echo "scale: exit $?"

echo
echo "== summary"
grep -v '^NODES\|^HOSTS' "$RESULTS" | sort -s -k1,1n
echo
echo "== targets"
target() {  # target NAME OK(0/1) MEASURED
  printf '%-62s %-5s %s\n' "$1" "$([ "$2" = 1 ] && echo met || echo MISSED)" "$3"
}
for nodes in 3 8; do
  line=$(grep "^$nodes .*no-op re-run" "$RESULTS") || continue
  wall_ratio=$(awk '{ print $(NF-1) }' <<<"$line" | tr -d x | cut -d. -f1)
  target "$nodes nodes: no-op re-run >= 20x faster than Ansible" "$([ "${wall_ratio:-0}" -ge 20 ] && echo 1 || echo 0)" "${wall_ratio}x"
done
noop3=$(grep "^3 .*no-op re-run" "$RESULTS" | awk '{ print $(NF-5) }')
[ -n "$noop3" ] && target "3 nodes: no-op deploy of the full stack under 1 s" "$([ "$noop3" -lt 1000 ] && echo 1 || echo 0)" "$noop3 ms"
for run in "no-op deploy " "no-op deploy --verify"; do
  line=$(grep "^1000 *$run" "$RESULTS" | head -1) || continue
  wall=$(awk '{ print $(NF-5) }' <<<"$line")
  rss=$(awk '{ print $(NF-2) }' <<<"$line")
  target "1000 hosts: $run<= 15 s" "$(awk -v w="$wall" 'BEGIN { print (w <= 15) }')" "$wall s"
  target "1000 hosts: $run controller RSS <= 1 MB per host" "$([ "$rss" -le 1024 ] && echo 1 || echo 0)" "$rss KiB/host"
done
