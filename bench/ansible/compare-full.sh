#!/usr/bin/env bash
# The full stack (base roles + munge + Slurm + accounting) on NODES testbed
# nodes, clusterctl against ansible-playbook doing the same work
# (bench/ansible/slurm.yml, the strongest fair configuration in ansible.cfg):
#   - first deploy on fresh nodes, the apt proxy cache warm for both;
#   - no-op re-run, median of RUNS, wall time and the controller's CPU time;
#   - clusterctl deploy --verify (checks every step on every node);
#   - resume: a first deploy killed (-9) at 50% of its time, then deploy again.
# Each tool works on its own fresh testbed. Prints one table; with
# BENCH_RESULTS=FILE also appends its rows there (bench/run.sh). Run as root:
#   sudo bench/ansible/compare-full.sh [NODES] [RUNS]
set -u
cd "$(dirname "$0")/../.."
NODES=${1:-3}
RUNS=${2:-5}
source bench/ansible/lib.sh

medians() {  # medians FILE: "wall_ms cpu_ms" medians of the FILE's lines
  echo "$(cut -d' ' -f1 "$1" | median) $(cut -d' ' -f2 "$1" | median)"
}

# 0. Warm-up (not measured): fills the apt proxy cache for both tools and
#    renders the configuration files Ansible will copy.
fresh_testbed --gpus 2
timeout 1800 "$CLUSTERCTL" deploy "$INV" >"$WORK/warmup.out" 2>&1 || { echo "warm-up deploy failed"; tail -20 "$WORK/warmup.out"; exit 1; }
mkdir -p -m 700 "$WORK/files"
for f in slurm.conf cgroup.conf gres.conf slurmdbd.conf clusterctl-slurmdbd-grants.sql; do $TB ssh node01 cat "/etc/slurm/$f" >"$WORK/files/$f"; done
$TB ssh node01 cat /usr/local/lib/clusterctl/slurm-maintenance >"$WORK/files/slurm-maintenance"
cp "$TESTBED_STATE/.clusterctl/secrets/munge_key" "$WORK/files/munge.key"

# 1. clusterctl: first deploy, no-op, --verify.
fresh_testbed --gpus 2
read -r cfirst cfirst_cpu rc < <(timed_cpu "$CLUSTERCTL" deploy "$INV")
[ "$rc" = 0 ] || { echo "clusterctl first deploy failed"; tail -20 "$WORK/last.out"; exit 1; }
cworks=$(idle_compute_nodes)
: >"$WORK/cnoop"
for _ in $(seq "$RUNS"); do timed_cpu "$CLUSTERCTL" deploy "$INV" >>"$WORK/cnoop"; done
grep -q "changed=0 failed=0" "$WORK/last.out" || echo "warning: the clusterctl re-run changed something" >&2
: >"$WORK/cverify"
for _ in $(seq "$RUNS"); do timed_cpu "$CLUSTERCTL" deploy --verify "$INV" >>"$WORK/cverify"; done
read -r cnoop cnoop_cpu < <(medians "$WORK/cnoop")
read -r cverify cverify_cpu < <(medians "$WORK/cverify")

# 2. Resume: kill -9 at 50% of the first deploy's time, then finish.
fresh_testbed --gpus 2
"$CLUSTERCTL" deploy "$INV" >"$WORK/killed.out" 2>&1 &
victim=$!
sleep "$(awk -v ms="$cfirst" 'BEGIN { printf "%.3f", ms / 2000 }')"
kill -9 "$victim" 2>/dev/null
wait "$victim" 2>/dev/null
read -r resume resume_cpu rc < <(timed_cpu "$CLUSTERCTL" deploy "$INV")
[ "$rc" = 0 ] || { echo "the resumed deploy failed"; tail -20 "$WORK/last.out"; exit 1; }
rworks=$(idle_compute_nodes)

# 3. ansible-playbook: first deploy on fresh nodes, then its no-op re-runs.
fresh_testbed --gpus 2
write_ansible_hosts
cp bench/ansible/ansible.cfg bench/ansible/base.yml bench/ansible/chrony.conf.j2 bench/ansible/slurm.yml "$WORK/"
cd "$WORK"
read -r afirst afirst_cpu arc < <(timed_cpu ansible-playbook -i hosts.ini slurm.yml)
[ "$arc" = 0 ] || { echo "ansible first deploy failed"; tail -30 last.out; exit 1; }
aworks=$(idle_compute_nodes)
: >anoop
for _ in $(seq "$RUNS"); do timed_cpu ansible-playbook -i hosts.ini slurm.yml >>anoop; done
grep -q "changed=0" last.out || { echo "warning: the Ansible re-run changed something:" >&2; grep -E "changed=" last.out >&2; }
read -r anoop anoop_cpu < <(medians anoop)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { r = (b > 0 ? a / b : 0); printf (r < 10 ? "%.1fx" : "%.0fx"), r }'; }
{
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' NODES MEASURE "CCTL WALL ms" "CCTL CPU ms" "ANSIBLE WALL ms" "ANSIBLE CPU ms" WALL CPU
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' "$NODES" "no-op re-run (median of $RUNS)" "$cnoop" "$cnoop_cpu" "$anoop" "$anoop_cpu" "$(ratio "$anoop" "$cnoop")" "$(ratio "$anoop_cpu" "$cnoop_cpu")"
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' "$NODES" "re-run checking every step (--verify)" "$cverify" "$cverify_cpu" "$anoop" "$anoop_cpu" "$(ratio "$anoop" "$cverify")" "$(ratio "$anoop_cpu" "$cverify_cpu")"
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' "$NODES" "first deploy (warm apt cache)" "$cfirst" "$cfirst_cpu" "$afirst" "$afirst_cpu" "$(ratio "$afirst" "$cfirst")" "$(ratio "$afirst_cpu" "$cfirst_cpu")"
  printf '%-5s %-40s %14s %14s\n' "$NODES" "resume after kill -9 at 50% (finish)" "$resume" "$resume_cpu"
  printf '%-5s cluster works after: clusterctl first deploy %s/%s idle, resumed deploy %s/%s, ansible first deploy %s/%s\n' \
    "$NODES" "$cworks" $((NODES - 1)) "$rworks" $((NODES - 1)) "$aworks" $((NODES - 1))
} | tee -a "${BENCH_RESULTS:-/dev/null}"
