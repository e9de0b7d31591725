#!/usr/bin/env bash
# The daemon under load, on loopback only: `clusterctl serve` over an
# inventory of HOSTS hosts (127.1.x.y, port 1: nothing listens, so every
# drift check fails fast and the daemon checks all of them back to back,
# one check a second) while wrk drives GET /api/v1/status for SECONDS with
# CONNECTIONS connections. Prints requests per second and the latency
# percentiles, then samples the daemon's resident memory across CHECKS
# drift checks (a 1 s interval stands in for an hour: 24 checks are a
# simulated day) to show it stays flat. Bounded: everything stops by itself.
#
#   bench/serve-load.sh [HOSTS] [SECONDS] [CONNECTIONS] [CHECKS]    (default 1000 30 16 240)
set -uo pipefail
cd "$(dirname "$0")/.."
HOSTS=${1:-1000}
SECONDS_LOAD=${2:-30}
CONNECTIONS=${3:-16}
CHECKS=${4:-240}
PORT=${BENCH_SERVE_PORT:-19441}
CLUSTERCTL=$(realpath build/clusterctl)
command -v wrk >/dev/null || { echo "needs wrk (scripts/install-deps.sh --daemon)"; exit 77; }
WORK=$(mktemp -d /tmp/clusterctl-serve-bench-XXXXXX)
daemon_pid=""
trap '[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT

{
  echo "version: 1"
  echo "cluster: bench"
  echo "connection: {user: root, port: 1, connect_timeout: 2}"
  echo "hosts:"
  for ((i = 0; i < HOSTS; i++)); do
    printf '  node%04d: {address: 127.1.%d.%d}\n' "$i" $((i / 250)) $((i % 250 + 1))
  done
  echo "groups:"
  echo "  compute: {hosts: 'node[0000-$(printf '%04d' $((HOSTS - 1)))]'}"
} >"$WORK/inventory.yaml"

"$CLUSTERCTL" serve "$WORK/inventory.yaml" --listen "127.0.0.1:$PORT" --verify-interval 1 --verify-batch 100% \
  >"$WORK/serve.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
TOKEN=$("$CLUSTERCTL" serve "$WORK/inventory.yaml" --print-token)
rss() { awk '/^VmRSS/ {print $2}' "/proc/$daemon_pid/status"; }
checks() { curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/status" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["drift"]["checks"])'; }

# Wait for the first drift check, so the status carries every host's drift.
for _ in $(seq 120); do [ "$(checks)" -ge 1 ] && break; sleep 0.5; done
bytes=$(curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/status" | wc -c)
echo "# $HOSTS hosts; GET /api/v1/status is $bytes bytes; drift checks run back to back during the load"
checks_before=$(checks)
wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_LOAD}s" --latency -H "Authorization: Bearer $TOKEN" \
  "http://127.0.0.1:$PORT/api/v1/status" | tee "$WORK/wrk.txt" | grep -E 'Requests/sec|Non-2xx|  50%|  90%|  99%|Socket errors'
echo "# drift checks during the load: $(( $(checks) - checks_before ))"

echo "# resident memory across drift checks (1 s interval: one check stands in for an hour)"
start_checks=$(checks)
printf '%8s %10s\n' checks rss_kib
while :; do
  done_checks=$(( $(checks) - start_checks ))
  printf '%8d %10d\n' "$done_checks" "$(rss)"
  [ "$done_checks" -ge "$CHECKS" ] && break
  sleep 10
done
