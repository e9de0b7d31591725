# Variables are declared by the roles (issue 32): unknown, mistyped and
# out-of-range values and missing files are refused, all in one pass, with
# suggestions; `clusterctl roles` shows the declarations.
mkdir -p "$WORK/vars"
vars_inventory() {  # vars_inventory NAME 'CLUSTER VARS YAML' ['HOST KEYS YAML']
  printf 'cluster: c\nvars:\n%s\nhosts:\n  head01:\n    address: 10.0.0.1\n%s\n  gpu01: {address: 10.0.0.2}\ngroups:\n  controller: {hosts: head01}\n  compute: {hosts: gpu01}\n' \
    "$2" "${3:-}" >"$WORK/vars/$1.yaml"
}
vars_inventory typo '  slurm_acounting: false'
expect "a misspelled variable is refused with a suggestion" 2 \
  "typo.yaml:3:20: error: unknown variable 'slurm_acounting': no role and no check reads it (did you mean 'slurm_accounting'?)" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/typo.yaml"
vars_inventory suffix '  ib_rate_gbps: 200'
expect "a threshold without its validate_ prefix gets the full name" 2 "(did you mean 'validate_ib_rate_gbps'?)" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/suffix.yaml"
vars_inventory allowed '  rdma_stack: mlnx-ofed'
expect "a value outside the allowed set" 2 \
  "variable rdma_stack is mlnx-ofed, not one of: inbox, mlnx_ofed, doca_ofed (did you mean 'mlnx_ofed'?) (role rdma)" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/allowed.yaml"
vars_inventory bundle '  rdma_stack: mlnx_ofed
  rdma_ofed_bundle: MLNX_OFED_LINUX-24.10-debian12-x86_64.tgz'
expect "a bundle that does not exist beside the inventory" 2 \
  "variable rdma_ofed_bundle names 'MLNX_OFED_LINUX-24.10-debian12-x86_64.tgz', which is not a readable file beside the inventory" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/bundle.yaml"
touch "$WORK/vars/MLNX_OFED_LINUX-24.10-debian12-x86_64.tgz"
expect "the same bundle once it is there" 0 "ok: cluster 'c'" -- "$CLUSTERCTL" inventory check "$WORK/vars/bundle.yaml"
vars_inventory threshold '  validate_gpus_expected: "8"
  validate_nccl_busbw_min_gbps: -5'
expect "a threshold of the wrong type" 2 "variable validate_gpus_expected must be an integer, not a string (8) (validate)" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/threshold.yaml"
expect "a threshold below its minimum, in the same pass" 2 "variable validate_nccl_busbw_min_gbps is -5, below its minimum 0 (validate)" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/threshold.yaml"
vars_inventory partition '  slurm_partitions: [{name: gpu, nodes: compute}]'
expect "a list item's unknown key" 2 "variable slurm_partitions[0]: unknown key 'nodes'; known: name, group, default, max_time, options" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/partition.yaml"
vars_inventory host_var '  ntp_servers: [pool.ntp.org]' '    vars: {nvidia_driver_brnach: "550"}'
expect "a host's own variable is checked too" 2 "unknown variable 'nvidia_driver_brnach'" -- \
  "$CLUSTERCTL" inventory check "$WORK/vars/host_var.yaml"
# One pass: a structure error does not hide the variable errors.
vars_inventory onepass '  slurm_acounting: false' '    adress: 10.0.0.9'
"$CLUSTERCTL" inventory check "$WORK/vars/onepass.yaml" >/dev/null 2>"$WORK/vars/onepass.err"
grep -q "unknown key 'adress'" "$WORK/vars/onepass.err" && grep -q "unknown variable 'slurm_acounting'" "$WORK/vars/onepass.err" &&
  grep -q "2 errors" "$WORK/vars/onepass.err" && pass "a key typo and a variable typo are reported by the same run" ||
  fail "one pass: $(cat "$WORK/vars/onepass.err")"
vars_inventory groupref '  slurm_acounting: false'
sed -i 's/compute: {hosts: gpu01}/compute: {hosts: [gpu01, gpu02]}/' "$WORK/vars/groupref.yaml"
"$CLUSTERCTL" inventory check "$WORK/vars/groupref.yaml" >/dev/null 2>"$WORK/vars/groupref.err"
grep -q "names host 'gpu02'" "$WORK/vars/groupref.err" && grep -q "unknown variable 'slurm_acounting'" "$WORK/vars/groupref.err" &&
  pass "an undefined group member and a variable typo in one run" || fail "one pass (groups): $(cat "$WORK/vars/groupref.err")"
# Every command that acts on nodes refuses them before contacting anything.
for command in deploy plan validate facts; do
  expect "$command refuses an unknown variable" 2 "unknown variable 'slurm_acounting'" -- \
    "$CLUSTERCTL" "$command" "$WORK/vars/typo.yaml" --state "$WORK/vars/state-$command"
  [ -e "$WORK/vars/state-$command" ] && fail "$command created a state for a refused inventory"
done
expect "run refuses an unknown variable" 2 "unknown variable 'slurm_acounting'" -- \
  "$CLUSTERCTL" run "$WORK/vars/typo.yaml" --state "$WORK/vars/state-run" -- true

# inventory check --json: every problem with its place, for editors and CI.
out=$("$CLUSTERCTL" inventory check --json "$WORK/vars/onepass.yaml" 2>"$WORK/vars/json.err"); rc=$?
if [ "$rc" -eq 2 ] && [ ! -s "$WORK/vars/json.err" ] &&
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["ok"] is False; assert len(d["problems"]) == 2
assert all(p["line"] > 0 and p["severity"] == "error" for p in d["problems"])' "$out"; then
  pass "inventory check --json lists the problems, stderr empty, exit 2"
else
  fail "inventory check --json: exit $rc, stderr $(cat "$WORK/vars/json.err"), got $out"
fi
out=$("$CLUSTERCTL" inventory check --json "$SRC/inventory/examples/small.yaml"); rc=$?
[ "$rc" -eq 0 ] && python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["ok"] and d["hosts"] == 6 and d["problems"] == []' "$out" &&
  pass "inventory check --json of a clean inventory" || fail "inventory check --json (clean): exit $rc, $out"

# clusterctl roles: the catalog and its declarations.
expect "roles lists every built-in role" 0 "slurm-common" -- "$CLUSTERCTL" roles
expect "roles list INVENTORY shows which hosts get a role" 0 "gpu[01-04],head01,login01" -- \
  "$CLUSTERCTL" roles list "$SRC/inventory/examples/small.yaml"
expect "roles show names each variable's type and default" 0 "rdma_stack" -- "$CLUSTERCTL" roles show rdma
expect "roles show of a mistyped role" 2 "unknown role 'rdam' (did you mean 'rdma'?)" -- "$CLUSTERCTL" roles show rdam
out=$("$CLUSTERCTL" roles show slurm-common --json)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); v={x["name"]: x for x in d["variables"]}
assert v["slurm_def_mem_per_cpu"]["default"] == 1024 and v["slurm_def_mem_per_cpu"]["type"] == "integer, at least 1"
assert "slurm_partitions[].group" in v and all(x["description"] for x in d["variables"])' "$out" &&
  pass "roles show --json: defaults as values, every variable described" || fail "roles show --json: $out"
expect "roles list -i INVENTORY" 0 "gpu[01-04],head01,login01" -- "$CLUSTERCTL" roles list -i "$SRC/inventory/examples/small.yaml"
expect "roles show takes CLUSTERCTL_INVENTORY" 0 "hosts: gpu[01-04],head01,login01" -- \
  env CLUSTERCTL_INVENTORY="$SRC/inventory/examples/small.yaml" "$CLUSTERCTL" roles show chrony
# A file path a step sends to nodes is refused once, by the step that sends it
# (the declaration's file: true then only checks that the file exists).
vars_inventory outside '  rdma_stack: mlnx_ofed
  rdma_ofed_bundle: ../../etc/shadow'
"$CLUSTERCTL" inventory check "$WORK/vars/outside.yaml" >/dev/null 2>"$WORK/vars/outside.err"
[ "$(grep -c "rdma_ofed_bundle" "$WORK/vars/outside.err")" = 1 ] && grep -q "copy parameter 'source'" "$WORK/vars/outside.err" &&
  pass "a path outside the inventory's directory is one error, naming the step" || fail "outside path: $(cat "$WORK/vars/outside.err")"
