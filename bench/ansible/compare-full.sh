#!/usr/bin/env bash
# A stack on NODES testbed nodes, clusterctl against ansible-playbook doing
# the same work (the strongest fair configuration in ansible.cfg). STACK:
#   slurm (default)  base roles + munge + Slurm + accounting on a `--gpus 2`
#                    testbed (bench/ansible/slurm.yml)
#   full             the README's full stack on a `--gpus 2 --hcas 1
#                    --services` testbed (bench/ansible/full.yml): also RDMA,
#                    IPoIB, the NVIDIA driver (SIMULATED packages, the GPU
#                    nodes' reboot), DCGM and its exporter, NFS, exporters,
#                    Prometheus, Alertmanager, Grafana
# Measured:
#   - first deploy on fresh nodes, the apt proxy cache warm for both;
#   - no-op re-run, median of RUNS, wall time and the controller's CPU time;
#   - clusterctl deploy --verify (checks every step on every node);
#   - resume: a first deploy killed (-9) at 50% of its time, then deploy again.
# Each tool works on its own fresh testbed. Prints one table; with
# BENCH_RESULTS=FILE also appends its rows there (bench/run.sh); RESUME=0
# leaves out the resume. Run as root:
#   sudo [STACK=full] [RESUME=0] bench/ansible/compare-full.sh [NODES] [RUNS]
set -u
cd "$(dirname "$0")/../.."
NODES=${1:-3}
RUNS=${2:-5}
STACK=${STACK:-slurm}
RESUME=${RESUME:-1}
source bench/ansible/lib.sh
case $STACK in
  slurm) TESTBED=(--gpus 2) PLAYBOOK=slurm.yml ;;
  full) TESTBED=(--gpus 2 --hcas 1 --services) PLAYBOOK=full.yml ;;
  *) echo "STACK is slurm or full, not '$STACK'"; exit 2 ;;
esac
# What clusterctl renders that the playbooks copy (fetch_rendered; absent ones skipped).
RENDERED=(/etc/slurm /usr/local/lib/clusterctl /usr/local/sbin/clusterctl-health /etc/clusterctl
  /etc/systemd/system/slurmd.service.d /etc/security/limits.d/clusterctl-memlock.conf
  /etc/security/clusterctl-ssh-access.conf /etc/systemd/network /etc/default/prometheus-node-exporter
  /etc/default/prometheus /etc/systemd/system/clusterctl-slurm-exporter.service
  /etc/prometheus/alertmanager.yml /etc/default/prometheus-alertmanager
  /usr/local/src/clusterctl/mpi-ring.c /usr/local/sbin/clusterctl-modules
  /etc/apt/preferences.d/clusterctl-nvidia-driver /etc/modprobe.d/clusterctl-blacklist-nouveau.conf
  /etc/ganesha /etc/tmpfiles.d/clusterctl-nfs-validate.conf /etc/prometheus/prometheus.yml
  /etc/prometheus/rules /etc/prometheus/file_sd /etc/grafana/grafana.ini /etc/grafana/provisioning
  /var/lib/grafana/dashboards)

# cluster_works: "I/N idle[, P/T prometheus targets up]" (the full stack's monitoring too).
cluster_works() {
  local idle
  idle="$(idle_compute_nodes)/$((NODES - 1)) idle"
  if [ "$STACK" = full ]; then echo "$idle, $(prometheus_targets_up) targets up"; else echo "$idle"; fi
}

# 0. Warm-up (not measured): fills the apt proxy cache for both tools and
#    renders the configuration files Ansible will copy.
fresh_testbed "${TESTBED[@]}"
timeout 1800 "$CLUSTERCTL" deploy "$INV" >"$WORK/warmup.out" 2>&1 || { echo "warm-up deploy failed"; tail -20 "$WORK/warmup.out"; exit 1; }
fetch_rendered "${RENDERED[@]}"
cp "$TESTBED_STATE/.clusterctl/secrets/munge_key" "$WORK/files/munge.key"

# 1. clusterctl: first deploy, no-op, --verify.
fresh_testbed "${TESTBED[@]}"
read -r cfirst cfirst_cpu rc < <(timed_cpu "$CLUSTERCTL" deploy "$INV")
[ "$rc" = 0 ] || { echo "clusterctl first deploy failed"; tail -20 "$WORK/last.out"; exit 1; }
cworks=$(cluster_works)
: >"$WORK/cnoop"
for _ in $(seq "$RUNS"); do timed_cpu "$CLUSTERCTL" deploy "$INV" >>"$WORK/cnoop"; done
grep -q "changed=0 failed=0" "$WORK/last.out" || echo "warning: the clusterctl re-run changed something" >&2
: >"$WORK/cverify"
for _ in $(seq "$RUNS"); do timed_cpu "$CLUSTERCTL" deploy --verify "$INV" >>"$WORK/cverify"; done
read -r cnoop cnoop_cpu < <(medians "$WORK/cnoop")
read -r cverify cverify_cpu < <(medians "$WORK/cverify")

# 2. Resume: kill -9 at 50% of the first deploy's time, then finish.
resume=- resume_cpu=- rworks="not measured"
if [ "$RESUME" = 1 ]; then
  fresh_testbed "${TESTBED[@]}"
  "$CLUSTERCTL" deploy "$INV" >"$WORK/killed.out" 2>&1 &
  victim=$!
  sleep "$(awk -v ms="$cfirst" 'BEGIN { printf "%.3f", ms / 2000 }')"
  kill -9 "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
  read -r resume resume_cpu rc < <(timed_cpu "$CLUSTERCTL" deploy "$INV")
  [ "$rc" = 0 ] || { echo "the resumed deploy failed"; tail -20 "$WORK/last.out"; exit 1; }
  rworks=$(cluster_works)
fi

# 3. ansible-playbook: first deploy on fresh nodes, then its no-op re-runs.
fresh_testbed "${TESTBED[@]}"
write_ansible_hosts
cp bench/ansible/ansible.cfg bench/ansible/*.yml bench/ansible/chrony.conf.j2 "$WORK/"
cd "$WORK"
read -r afirst afirst_cpu arc < <(timed_cpu ansible-playbook -i hosts.ini "$PLAYBOOK")
# The failing tasks first (their "fatal:" lines and the message after), then the recap.
[ "$arc" = 0 ] || { echo "ansible first deploy failed"; grep -A3 -E '^fatal: |FAILED!' last.out | head -40; tail -30 last.out; exit 1; }
aworks=$(cluster_works)
: >anoop
for _ in $(seq "$RUNS"); do timed_cpu ansible-playbook -i hosts.ini "$PLAYBOOK" >>anoop; done
grep -qE "changed=[1-9]" last.out && { echo "warning: the Ansible re-run changed something:" >&2; grep -E "changed=" last.out >&2; }
read -r anoop anoop_cpu < <(medians anoop)

{
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' NODES MEASURE "CCTL WALL ms" "CCTL CPU ms" "ANSIBLE WALL ms" "ANSIBLE CPU ms" WALL CPU
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' "$NODES" "no-op re-run (median of $RUNS)" "$cnoop" "$cnoop_cpu" "$anoop" "$anoop_cpu" "$(ratio "$anoop" "$cnoop")" "$(ratio "$anoop_cpu" "$cnoop_cpu")"
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' "$NODES" "re-run checking every step (--verify)" "$cverify" "$cverify_cpu" "$anoop" "$anoop_cpu" "$(ratio "$anoop" "$cverify")" "$(ratio "$anoop_cpu" "$cverify_cpu")"
  printf '%-5s %-40s %14s %14s %14s %14s %7s %7s\n' "$NODES" "first deploy (warm apt cache)" "$cfirst" "$cfirst_cpu" "$afirst" "$afirst_cpu" "$(ratio "$afirst" "$cfirst")" "$(ratio "$afirst_cpu" "$cfirst_cpu")"
  printf '%-5s %-40s %14s %14s\n' "$NODES" "resume after kill -9 at 50% (finish)" "$resume" "$resume_cpu"
  printf '%-5s %s stack; cluster works after: clusterctl first deploy %s; resumed deploy %s; ansible first deploy %s\n' \
    "$NODES" "$STACK" "$cworks" "$rworks" "$aworks"
} | tee -a "${BENCH_RESULTS:-/dev/null}"
