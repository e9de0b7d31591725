# A *_file variable may not send the connection key, the state directory or
# a private key its variable does not declare (issue 47, item 5): inventory
# check refuses each at the variable's file:line, naming the reason.
mkdir -p "$WORK/sensitive/.clusterctl/secrets"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\n' >"$WORK/sensitive/id_test"
cp "$WORK/sensitive/id_test" "$WORK/sensitive/copied_key"
printf 'k' >"$WORK/sensitive/.clusterctl/secrets/munge_key"
printf -- '-----BEGIN PGP PUBLIC KEY BLOCK-----\n' >"$WORK/sensitive/grafana.asc"
sensitive_inventory() {  # sensitive_inventory NAME KEY_FILE
  printf 'cluster: c\nconnection: {key_file: id_test}\nvars:\n  grafana_repository: https://apt.grafana.com\n  grafana_repository_key_file: %s\nhosts:\n  mon01: {address: 10.0.0.1}\ngroups:\n  monitoring: {hosts: mon01}\n' \
    "$2" >"$WORK/sensitive/$1.yaml"
}
sensitive_inventory connection id_test
expect "inventory check refuses the connection key as a *_file, at its line" 2 \
  "connection.yaml:5:32: error: variable grafana_repository_key_file names 'id_test', which is not sent to nodes: it is the cluster's SSH connection key" -- \
  "$CLUSTERCTL" inventory check "$WORK/sensitive/connection.yaml"
sensitive_inventory state .clusterctl/secrets/munge_key
expect "inventory check refuses a file in the state directory" 2 "it lies in clusterctl's state directory" -- \
  "$CLUSTERCTL" inventory check "$WORK/sensitive/state.yaml"
sensitive_inventory private copied_key
expect "inventory check refuses a private key where none is declared" 2 "it holds a private key" -- \
  "$CLUSTERCTL" inventory check "$WORK/sensitive/private.yaml"
expect "plan refuses it too, before any host is contacted" 2 "it holds a private key" -- \
  "$CLUSTERCTL" plan "$WORK/sensitive/private.yaml" --state "$WORK/sensitive-state"
sensitive_inventory public grafana.asc
expect "a public key beside the inventory is accepted" 0 "ok: cluster 'c'" -- \
  "$CLUSTERCTL" inventory check "$WORK/sensitive/public.yaml"
