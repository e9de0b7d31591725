# Shared by the Ansible comparisons: a testbed of their own (separate state,
# subnet and names from a developer's testbed and from the e2e tests), a
# timer, a median, and the Ansible inventory of the testbed's nodes.
# The sourcing script sets NODES.
export TESTBED_STATE=/var/lib/clusterctl-testbed-bench TESTBED_PREFIX=ctbb TESTBED_SUBNET=10.213.79
TB=$(realpath tests/testbed/testbed)  # absolute: the scripts cd into $WORK, and the EXIT trap needs it
CLUSTERCTL=${BENCH_CLUSTERCTL:-$(realpath build/clusterctl)}  # BENCH_CLUSTERCTL: another build, or a wrapper
WORK=$(mktemp -d /tmp/clusterctl-compare-XXXXXX)
trap '$TB down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT  # a timeout's SIGTERM still runs the EXIT trap (the testbed goes down)

# fresh_testbed [ARGS]: a new testbed of $NODES nodes (up ARGS); its inventory in $INV.
fresh_testbed() {
  $TB down >/dev/null 2>&1
  INV=$($TB up "$NODES" "$@" 2>/dev/null) || { echo "testbed up $NODES failed"; exit 1; }
}

# timed COMMAND...: prints "milliseconds exit_code"; the output goes to $WORK/last.out.
timed() { local s e; s=$(date +%s%N); "$@" >"$WORK/last.out" 2>&1; local rc=$?; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) $rc"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# node01 in controller, the others in compute, as the testbed's own inventory.
write_ansible_hosts() {
  {
    echo "[controller]"
    echo "node01 ansible_host=$TESTBED_SUBNET.11"
    echo "[compute]"
    for i in $(seq 2 "$NODES"); do printf 'node%02d ansible_host=%s.%d\n' "$i" "$TESTBED_SUBNET" $((10 + i)); done
    # The full stack's groups (full.yml), as the testbed's inventory has them.
    printf '[login]\nnode01\n[nfs_server]\nnode01\n[nfs_clients:children]\ncompute\n[monitoring]\nnode01\n'
    echo "[all:vars]"
    echo "ansible_user=root"
    echo "ansible_ssh_private_key_file=$TESTBED_STATE/ssh/id_ed25519"
    # Each host's files as clusterctl rendered them (fetch_rendered).
    echo "rendered=files/{{ inventory_hostname }}"
    # The fabric (ib0) and the testbed's local repository, from its inventory.
    echo "fabric_subnet=$(IFS=. read -r a b c <<<"$TESTBED_SUBNET"; echo "$a.$b.$((c + 100))")"
    sed -n 's/^  nvidia_driver_repository: \(.*\)/local_repo=\1/p; s/^  nvidia_driver_version: \(.*\)/nvidia_driver_version=\1/p' "$INV"
  } >"$WORK/hosts.ini"
}

# fetch_rendered PATH...: every node's copy of the PATHs (files or
# directories; absent ones skipped) into $WORK/files/NODE/, the bytes
# clusterctl rendered there, for Ansible to copy (its `rendered` variable).
fetch_rendered() {
  local i node
  for i in $(seq "$NODES"); do
    node=$(printf 'node%02d' "$i")
    mkdir -p -m 700 "$WORK/files/$node"
    $TB exec "$node" tar -cf - --ignore-failed-read "$@" 2>/dev/null | tar -xf - -C "$WORK/files/$node"
  done
}

medians() {  # medians FILE: "wall_ms cpu_ms" medians of the FILE's lines
  echo "$(cut -d' ' -f1 "$1" | median) $(cut -d' ' -f2 "$1" | median)"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { r = (b > 0 ? a / b : 0); printf (r < 10 ? "%.1fx" : "%.0fx"), r }'; }

# prometheus_targets_up: "UP/TOTAL" of the monitoring host's (node01)
# Prometheus scrape targets, waiting up to 60 s for every one to be up.
prometheus_targets_up() {
  local counts="0/0"
  for _ in $(seq 30); do
    counts=$($TB ssh node01 python3 - "$TESTBED_SUBNET.11" 2>/dev/null <<'PY'
import json, sys, urllib.request
targets = json.load(urllib.request.urlopen("http://%s:9090/api/v1/targets" % sys.argv[1], timeout=5))["data"]["activeTargets"]
print("%d/%d" % (sum(t["health"] == "up" for t in targets), len(targets)))
PY
) || counts="0/0"
    [ "${counts%/*}" = "${counts#*/}" ] && [ "$counts" != 0/0 ] && break
    sleep 2
  done
  echo "$counts"
}

# timed_cpu COMMAND...: prints "wall_ms cpu_ms exit_code", where cpu_ms is the
# user + system time of COMMAND and every process it waited for (Ansible's
# forked workers and their ssh clients; clusterctl has none). 30 min at most;
# the output goes to $WORK/last.out.
timed_cpu() {
  /usr/bin/time -f '%e %U %S %x' -o "$WORK/time" timeout 1800 "$@" >"$WORK/last.out" 2>&1
  awk '{ printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, $4 }' "$WORK/time" | tail -1
}
# idle_compute_nodes: how many nodes sinfo on node01 shows idle (waits up to 60 s for NODES-1).
idle_compute_nodes() {
  local n=0
  for _ in $(seq 60); do
    n=$($TB ssh node01 "sinfo -h -N -t idle -o %N" 2>/dev/null | sort -u | wc -l)
    [ "$n" -ge $((NODES - 1)) ] && break
    sleep 1
  done
  echo "$n"
}
