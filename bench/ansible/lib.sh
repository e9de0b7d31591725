# Shared by the Ansible comparisons: a testbed of their own (separate state,
# subnet and names from a developer's testbed and from the e2e tests), a
# timer, a median, and the Ansible inventory of the testbed's nodes.
# The sourcing script sets NODES.
export TESTBED_STATE=/var/lib/clusterctl-testbed-bench TESTBED_PREFIX=ctbb TESTBED_SUBNET=10.213.79
TB=$(realpath tests/testbed/testbed)  # absolute: the scripts cd into $WORK, and the EXIT trap needs it
CLUSTERCTL=$(realpath build/clusterctl)
WORK=$(mktemp -d /tmp/clusterctl-compare-XXXXXX)
trap '$TB down >/dev/null 2>&1; rm -rf "$WORK"' EXIT

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
    echo "[all:vars]"
    echo "ansible_user=root"
    echo "ansible_ssh_private_key_file=$TESTBED_STATE/ssh/id_ed25519"
  } >"$WORK/hosts.ini"
}
