#!/usr/bin/env bash
# The README's full stack (--gpus 2 --hcas 1 --services) deployed on NODES
# fresh testbed nodes, against the package manager's limit for the same
# nodes: every package the deploy leaves installed, installed on fresh nodes
# by one `apt-get update && apt-get install` per node (with the deploy's apt
# options: no Recommends), all nodes in
# parallel, from the same sources (the apt proxy, and the testbed's local
# repository the roles add). Both sides run with the proxy cache warm (a
# warm-up deploy first, not measured), each on its own fresh testbed.
# Prints deploy seconds, limit seconds and their ratio (issue 39's target:
# at most 1.2x), and the deploy's seconds outside its recorded steps and
# up-front installs (issue 55), and (with process accounting, package acct)
# the apt commands each side ran; with BENCH_RESULTS=FILE also appends the
# rows there, with BENCH_DEPLOY_LOG=FILE keeps the deploy's --json events
# (and FILE.history.json, its `history --run N --json`).
# PAIRS (default 1) measures the deploy and the limit that many times, in
# turn, each on a fresh testbed, and prints each pair and the medians: on a
# 2-core machine one pair's ratio moved between 1.08x and 1.30x from run to
# run of the same tree (docs/performance.md), the medians less.
# Run as root:
#   sudo [PAIRS=3] bench/first-deploy-limit.sh [NODES]
# What the limit leaves out by design: configuration, services, the GPU
# nodes' reboot (the testbed's simulated driver needs one), validation.
set -u
cd "$(dirname "$0")/.."
NODES=${1:-3}
source bench/ansible/lib.sh
STACK=(--gpus 2 --hcas 1 --services)
APT_FILES=(/etc/apt/sources.list.d /etc/apt/preferences.d /etc/apt/keyrings /etc/apt/trusted.gpg.d)

nodes() { for i in $(seq "$NODES"); do printf 'node%02d\n' "$i"; done; }
# CPU each node's cgroup has used (ms; tests/testbed/lib/cgroup.sh), and the
# difference of two such lists in seconds: the CPU a side spent on each node.
cpu_ms() {
  local n f
  for n in $(nodes); do
    f=/sys/fs/cgroup/cpuacct/clusterctl-testbed/$TESTBED_PREFIX-$n/cpuacct.usage
    printf '%s ' "$([ -r "$f" ] && echo $(( $(cat "$f") / 1000000 )) || echo 0)"
  done
}
cpu_spent() {  # cpu_spent "BEFORE" "AFTER"
  python3 -c 'import sys; b, a = (list(map(int, x.split())) for x in sys.argv[1:3]); names = sys.argv[3:]
print(" ".join("%s=%.1f" % (n, (y - x) / 1000) for n, x, y in zip(names, b, a)), "total=%.1f" % ((sum(a) - sum(b)) / 1000))' \
    "$1" "$2" $(nodes)
}
seconds() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
# Process accounting (package acct), where the machine has it: the apt
# commands each side ran on all nodes (the nodes share this kernel), each
# one loading apt's package cache. Turns the machine's accounting off after.
acct_on() { command -v accton >/dev/null && : >"$WORK/$1.pacct" && accton "$WORK/$1.pacct" >/dev/null; }
acct_off() { command -v accton >/dev/null && accton off >/dev/null; }
apt_runs() {
  [ -s "$WORK/$1.pacct" ] || { echo "(no process accounting: apt-get install acct)"; return; }
  lastcomm -f "$WORK/$1.pacct" 2>/dev/null |
    awk '$1 == "apt-get" || $1 == "apt-cache" || $1 == "apt-mark" { n[$1]++ } END { printf "apt-get=%d apt-cache=%d apt-mark=%d\n", n["apt-get"], n["apt-cache"], n["apt-mark"] }'
}

# 0. Warm-up: fills the proxy cache; records what a fresh node has marked
#    manual, and what each deployed node has, and the apt sources the roles added.
fresh_testbed "${STACK[@]}"
$TB exec node02 apt-mark showmanual | sort >"$WORK/fresh.manual"
timeout 1800 "$CLUSTERCTL" deploy "$INV" >"$WORK/warmup.out" 2>&1 || { echo "warm-up deploy failed"; tail -20 "$WORK/warmup.out"; exit 1; }
for n in $(nodes); do
  $TB exec "$n" apt-mark showmanual | sort | comm -13 "$WORK/fresh.manual" - >"$WORK/$n.packages"
  $TB exec "$n" tar -cf - --ignore-failed-read "${APT_FILES[@]}" 2>/dev/null >"$WORK/$n.apt.tar"
  [ -s "$WORK/$n.packages" ] || { echo "$n: the deploy left no package installed?"; exit 1; }
done

# 1. The deploy (measure_deploy: sets deploy_ms, deploy_cpu, outside, transactions).
measure_deploy() {
  fresh_testbed "${STACK[@]}"
  cpu_before=$(cpu_ms)
  acct_on deploy
  read -r deploy_ms rc < <(timed timeout 1800 "$CLUSTERCTL" deploy "$INV" --json)
  acct_off
  deploy_cpu=$(cpu_spent "$cpu_before" "$(cpu_ms)")
  [ "$rc" = 0 ] || { echo "the measured deploy failed"; tail -20 "$WORK/last.out"; exit 1; }
  [ -z "${BENCH_DEPLOY_LOG:-}" ] || cp "$WORK/last.out" "$BENCH_DEPLOY_LOG"
  # Its time outside its recorded steps and up-front installs (issue 55).
  cp "$WORK/last.out" "$WORK/deploy.json"
  run=$(python3 tests/e2e/time_outside_steps.py --run-of "$WORK/deploy.json")
  "$CLUSTERCTL" history "$INV" --run "$run" --json >"$WORK/history.json"
  outside=$(python3 tests/e2e/time_outside_steps.py "$WORK/history.json" "$WORK/deploy.json")
  [ -z "${BENCH_DEPLOY_LOG:-}" ] || cp "$WORK/history.json" "$BENCH_DEPLOY_LOG.history.json"
  # apt's own record of the deploy: its transactions per node (history.log).
  transactions=$(for n in $(nodes); do printf '%s=%s ' "$n" "$($TB exec "$n" grep -c '^Start-Date' /var/log/apt/history.log)"; done)
}

# 2. The limit: the same packages, one transaction per node, all nodes at once
#    (measure_limit, below).
# apt as the deploy runs it (agent/resources/package.cc: AptUpdate, the
# install in PackageResource, RunApt's lock timeout): no Recommends, the
# node's configuration files kept. A limit that installs Recommends does
# more work than the deploy and flatters the ratio.
APT_UPDATE=(apt-get -o DPkg::Lock::Timeout=600 -o Acquire::http::Timeout=60 update -q)
APT_INSTALL=(apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends
             -o Dpkg::Options::=--force-confold --allow-downgrades --allow-change-held-packages --)
# Over SSH, as the deploy's agent runs: the commands then run in the node's
# own cgroup (its CPU share and accounting), where `testbed exec` (nsenter)
# would leave them in the machine's root cgroup, a share of their own beside
# the whole testbed's, and outside the node's CPU figures below.
install_all() {
  local n pids=() failed=0 command
  for n in $(nodes); do
    # One package name per word; %q keeps each a single word on the node's shell.
    # shellcheck disable=SC2046  # one package name per word
    command="DEBIAN_FRONTEND=noninteractive ${APT_UPDATE[*]} && DEBIAN_FRONTEND=noninteractive ${APT_INSTALL[*]}$(printf ' %q' $(cat "$WORK/$n.packages"))"
    $TB ssh "$n" "$command" >"$WORK/$n.limit.out" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  return $failed
}
# measure_limit: sets limit_ms, limit_cpu.
measure_limit() {
  local n cpu_before rc
  fresh_testbed "${STACK[@]}"
  for n in $(nodes); do $TB exec "$n" tar -xf - -C / <"$WORK/$n.apt.tar"; done
  cpu_before=$(cpu_ms)
  acct_on limit
  read -r limit_ms rc < <(timed install_all)
  acct_off
  limit_cpu=$(cpu_spent "$cpu_before" "$(cpu_ms)")
  [ "$rc" = 0 ] || { echo "the one-transaction install failed"; tail -5 "$WORK"/node*.limit.out; exit 1; }
}

# Two decimals: lib.sh's ratio() prints one, too coarse for a 1.2x target.
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
deploys=() limits=() pair_lines=()
for pair in $(seq "${PAIRS:-1}"); do
  measure_deploy
  measure_limit
  deploys+=("$deploy_ms") limits+=("$limit_ms")
  pair_lines+=("$(printf '%-5s %-44s %10s %10s %7s' "$NODES" "pair $pair of ${PAIRS:-1}" "$(seconds "$deploy_ms")" "$(seconds "$limit_ms")" "$(ratio_of "$deploy_ms" "$limit_ms")")")
done
deploy_ms=$(printf '%s\n' "${deploys[@]}" | median) limit_ms=$(printf '%s\n' "${limits[@]}" | median)  # lib.sh
ratio=$(ratio_of "$deploy_ms" "$limit_ms")
{
  printf '%-5s %-44s %10s %10s %7s\n' NODES MEASURE "DEPLOY s" "LIMIT s" RATIO
  printf '%-5s %-44s %10s %10s %7s\n' "$NODES" "full-stack first deploy vs one apt per node" \
    "$(seconds "$deploy_ms")" "$(seconds "$limit_ms")" "$ratio"
  [ "${PAIRS:-1}" -eq 1 ] || printf '%s\n' "${pair_lines[@]}" "$NODES     (the first line: medians of the ${PAIRS} pairs; the lines below it: the last pair)"
  printf '%-5s packages per node (explicit): %s\n' "$NODES" "$(for n in $(nodes); do printf '%s=%s ' "$n" "$(wc -l <"$WORK/$n.packages")"; done)"
  printf '%-5s apt transactions of the deploy per node: %s\n' "$NODES" "$transactions"
  printf '%-5s seconds outside recorded steps and up-front installs, then each host'"'"'s recorded work: %s\n' "$NODES" "$outside"
  printf '%-5s CPU seconds spent on the nodes, deploy: %s\n' "$NODES" "$deploy_cpu"
  printf '%-5s CPU seconds spent on the nodes, limit:  %s\n' "$NODES" "$limit_cpu"
  printf '%-5s apt commands run on all nodes, deploy: %s\n' "$NODES" "$(apt_runs deploy)"
  printf '%-5s apt commands run on all nodes, limit:  %s\n' "$NODES" "$(apt_runs limit)"
  printf '%-5s load average at the end: %s\n' "$NODES" "$(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "${BENCH_RESULTS:-/dev/null}"
