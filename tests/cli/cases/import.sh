# `inventory import` of a DeepOps config directory (inventory, group_vars/,
# host_vars/), and the warning about DeepOps group names in a hand-written
# inventory. Sourced by tests/cli/run.sh (expect, pass, fail, $CLUSTERCTL, $SRC, $WORK).

deepops="$SRC/inventory/examples/deepops-config"
expect "import reads group_vars and converts DeepOps's variables" 0 \
  "group_vars/all.yml:2: chrony_config_server imported as ntp_servers" -- \
  "$CLUSTERCTL" inventory import --cluster lab -o "$WORK/deepops.yaml" "$deepops/inventory"
expect "import leaves DeepOps's slurm_version out, saying why" 0 \
  "slurm_version not imported: DeepOps builds Slurm from SchedMD's source" -- \
  "$CLUSTERCTL" inventory import --cluster lab "$deepops/inventory"
expect "import never writes a vault secret" 0 "slurm_db_password not imported: it holds a password or secret" -- \
  "$CLUSTERCTL" inventory import --cluster lab "$deepops/inventory"
expect "the imported DeepOps inventory passes inventory check" 0 "ok: cluster 'lab', 3 hosts" -- \
  "$CLUSTERCTL" inventory check "$WORK/deepops.yaml"
if grep -q 'address: 10.0.2.11' "$WORK/deepops.yaml" && grep -q 'port: 2222' "$WORK/deepops.yaml" &&
   grep -q 'ipoib_mtu: 4092' "$WORK/deepops.yaml" && grep -q 'nvidia_driver_branch: "580"' "$WORK/deepops.yaml" &&
   ! grep -v '^#' "$WORK/deepops.yaml" | grep -qE 'slurm_version|not-a-real-hash|ANSIBLE_VAULT|docker_install|users'; then
  pass "host_vars and group_vars land at their levels; unknown variables and secrets stay out"
else
  fail "imported DeepOps inventory: $(cat "$WORK/deepops.yaml")"
fi

# An INI value keeps its text: 23.10 is not the number 23.1.
printf '[all]\nn1 ansible_host=10.0.0.1\n[all:vars]\nnvidia_driver_branch=0550\nipoib_mtu=4092\n' >"$WORK/values.ini"
"$CLUSTERCTL" inventory import "$WORK/values.ini" >"$WORK/values.yaml" 2>/dev/null
if grep -q 'nvidia_driver_branch: "0550"' "$WORK/values.yaml" && grep -q 'ipoib_mtu: 4092$' "$WORK/values.yaml"; then
  pass "import keeps an INI value's text and quotes what YAML would retype"
else
  fail "import of INI values: $(cat "$WORK/values.yaml")"
fi

# Bad YAML in group_vars: file:line, and nothing written.
cp -r "$deepops" "$WORK/broken"
printf 'ntp: [a, b\nx: 1\n' >"$WORK/broken/group_vars/all.yml"
expect "import refuses bad YAML in group_vars with file:line" 2 "broken/group_vars/all.yml:2:" -- \
  "$CLUSTERCTL" inventory import -o "$WORK/broken.yaml" "$WORK/broken/inventory"
[ ! -e "$WORK/broken.yaml" ] && pass "nothing is written when group_vars are bad" ||
  fail "import wrote $WORK/broken.yaml despite bad group_vars"
printf 'a: \xff\n' >"$WORK/broken/group_vars/all.yml"
expect "import refuses invalid UTF-8 in group_vars" 2 "broken/group_vars/all.yml:1:" -- \
  "$CLUSTERCTL" inventory import "$WORK/broken/inventory"

# A hand-written inventory with DeepOps's group names.
cat >"$WORK/deepops-names.yaml" <<'YAML'
cluster: lab
hosts:
  head: {address: 10.0.0.1}
  gpu01: {address: 10.0.0.2}
groups:
  slurm-master: {hosts: head}
  kube-node: {hosts: gpu01}
YAML
expect "inventory check warns about a DeepOps group name" 0 \
  "group 'slurm-master' is DeepOps's name: clusterctl's roles apply to 'controller'; its hosts get no Slurm controller role" -- \
  "$CLUSTERCTL" inventory check "$WORK/deepops-names.yaml"
expect "inventory check says clusterctl does not deploy Kubernetes" 0 "clusterctl does not deploy Kubernetes" -- \
  "$CLUSTERCTL" inventory check "$WORK/deepops-names.yaml"
expect "inventory show warns too" 0 "group 'slurm-master' is DeepOps's name" -- \
  "$CLUSTERCTL" inventory show "$WORK/deepops-names.yaml"
