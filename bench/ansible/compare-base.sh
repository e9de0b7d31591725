#!/usr/bin/env bash
# Times clusterctl and ansible-playbook doing the same work (roles hosts,
# chrony, users) on fresh testbed nodes: the first deploy, then no-op re-runs
# (median of RUNS). Run as root: sudo bench/ansible/compare-base.sh [NODES] [RUNS]
set -u
cd "$(dirname "$0")/../.."
NODES=${1:-3}
RUNS=${2:-5}
source bench/ansible/lib.sh

# clusterctl
fresh_testbed
read -r first rc < <(timed "$CLUSTERCTL" deploy --roles hosts,chrony,users "$INV")
[ "$rc" = 0 ] || { echo "clusterctl first deploy failed"; cat "$WORK/last.out"; exit 1; }
noop=$(for i in $(seq "$RUNS"); do timed "$CLUSTERCTL" deploy --roles hosts,chrony,users "$INV" | cut -d' ' -f1; done | median)
verify=$(for i in $(seq "$RUNS"); do timed "$CLUSTERCTL" deploy --verify --roles hosts,chrony,users "$INV" | cut -d' ' -f1; done | median)

# ansible-playbook on fresh nodes
fresh_testbed
write_ansible_hosts
cp bench/ansible/ansible.cfg bench/ansible/base.yml bench/ansible/chrony.conf.j2 "$WORK/"
cd "$WORK"
read -r afirst arc < <(timed ansible-playbook -i hosts.ini base.yml)
[ "$arc" = 0 ] || { echo "ansible first run failed"; tail -20 last.out; exit 1; }
anoop=$(for i in $(seq "$RUNS"); do timed ansible-playbook -i hosts.ini base.yml | cut -d' ' -f1; done | median)
grep -q "changed=0" last.out || echo "warning: the Ansible re-run changed something"

printf '%-28s %12s %12s\n' "$NODES nodes, hosts+chrony+users" clusterctl ansible
printf '%-28s %10s ms %10s ms\n' "first deploy" "$first" "$afirst"
printf '%-28s %10s ms %10s ms\n' "no-op re-run (median $RUNS)" "$noop" "$anoop"
printf '%-28s %10s ms %12s\n' "re-run checking every node" "$verify" "(= ansible)"
