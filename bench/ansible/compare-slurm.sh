#!/usr/bin/env bash
# No-op re-run of the full stack (base roles + munge + Slurm + accounting) on
# the same testbed nodes: clusterctl deploy versus ansible-playbook with
# bench/ansible/slurm.yml doing the same checks. Also times clusterctl's
# first deploy. Medians of RUNS. Run as root:
#   sudo bench/ansible/compare-slurm.sh [NODES] [RUNS]
set -u
cd "$(dirname "$0")/../.."
NODES=${1:-3}
RUNS=${2:-5}
source bench/ansible/lib.sh

$TB down >/dev/null 2>&1
INV=$($TB up "$NODES" --gpus 2 2>/dev/null) || exit 1
read -r first rc < <(timed "$CLUSTERCTL" deploy "$INV")
[ "$rc" = 0 ] || { echo "clusterctl first deploy failed"; tail -20 "$WORK/last.out"; exit 1; }
noop=$(for i in $(seq "$RUNS"); do timed "$CLUSTERCTL" deploy "$INV" | cut -d' ' -f1; done | median)
verify=$(for i in $(seq "$RUNS"); do timed "$CLUSTERCTL" deploy --verify "$INV" | cut -d' ' -f1; done | median)

# The same nodes, for Ansible: the files clusterctl rendered, kept private.
mkdir -p -m 700 "$WORK/files"
for f in slurm.conf cgroup.conf gres.conf slurmdbd.conf clusterctl-slurmdbd-grants.sql; do $TB ssh node01 cat "/etc/slurm/$f" >"$WORK/files/$f"; done
$TB ssh node01 cat /usr/local/lib/clusterctl/slurm-remove-node >"$WORK/files/slurm-remove-node"
cp "$TESTBED_STATE/.clusterctl/secrets/munge_key" "$WORK/files/munge.key"
write_ansible_hosts
cp bench/ansible/ansible.cfg bench/ansible/base.yml bench/ansible/chrony.conf.j2 bench/ansible/slurm.yml "$WORK/"
cd "$WORK"
# The first run takes over what base.yml writes its own way (its /etc/hosts
# block, its chrony.conf); the re-runs are Ansible's no-op.
read -r _ arc < <(timed ansible-playbook -i hosts.ini slurm.yml)
[ "$arc" = 0 ] || { echo "ansible first run failed"; tail -20 last.out; exit 1; }
anoop=$(for i in $(seq "$RUNS"); do timed ansible-playbook -i hosts.ini slurm.yml | cut -d' ' -f1; done | median)
grep -q "changed=0" last.out || { echo "warning: the Ansible re-run changed something:"; grep -E "changed:|changed=" last.out | head; }

printf '%-36s %12s %12s\n' "$NODES nodes, base + Slurm + accounting" clusterctl ansible
printf '%-36s %10s ms\n' "first deploy (warm apt cache)" "$first"
printf '%-36s %10s ms %10s ms   (%sx)\n' "no-op re-run (median $RUNS)" "$noop" "$anoop" "$(( anoop / (noop > 0 ? noop : 1) ))"
printf '%-36s %10s ms\n' "re-run checking every node (--verify)" "$verify"
