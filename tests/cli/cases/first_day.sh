# An admin's first day (issue 53): mistakes caught with a way out, output
# that fits the screen, the small conformance of a command line.
mkdir -p "$WORK/first-day"
fd=$WORK/first-day
small="$SRC/inventory/examples/small.yaml"

# --- item 3: group names close to a known one, hosts in no group: warned; errors with --strict
cat >"$fd/groups.yaml" <<'YAML'
cluster: c
hosts:
  head: {address: 10.0.0.1}
  gpu[1-2]: {address: "10.0.0.[2-3]"}
  lost: {address: 10.0.0.9}
groups:
  controler: {hosts: [head]}
  computes: {hosts: "gpu[1-2]"}
YAML
out=$("$CLUSTERCTL" inventory check "$fd/groups.yaml" 2>&1); rc=$?
if [ "$rc" -eq 0 ] &&
  grep -qF "groups.yaml:7:3: warning: group 'controler' is not a group clusterctl's roles know (did you mean 'controller'?)" <<<"$out" &&
  grep -qF "groups.yaml:8:3: warning: group 'computes' is not a group clusterctl's roles know (did you mean 'compute'?)" <<<"$out" &&
  grep -qF "groups.yaml:5:3: warning: 1 host is in no group (lost): they get only the roles for every host" <<<"$out"; then
  pass "near-miss group names and hosts in no group are warned"
else
  fail "near-miss group names and hosts in no group: exit $rc; got: $out"
fi
expect "--strict makes the warnings errors" 2 "(did you mean 'controller'?): its hosts get none of the roles of group 'controller' (an error with --strict)" -- \
  "$CLUSTERCTL" inventory check --strict "$fd/groups.yaml"
expect "plan --strict refuses them before contacting anything" 2 "an error with --strict" -- \
  "$CLUSTERCTL" plan --strict "$fd/groups.yaml" --state "$fd/strict-state"
test ! -e "$fd/strict-state" && pass "a refused plan --strict created no state" || fail "plan --strict created a state"
expect "--strict on a clean inventory passes" 0 "ok: cluster 'small'" -- "$CLUSTERCTL" inventory check --strict "$small"

# --- item 4: structural requirements are inventory errors, with file:line, not template errors
cat >"$fd/no-controller.yaml" <<'YAML'
cluster: c
hosts:
  gpu[1-2]: {address: "10.0.0.[2-3]"}
groups:
  compute: {hosts: "gpu[1-2]"}
YAML
out=$("$CLUSTERCTL" plan "$fd/no-controller.yaml" --state "$fd/nc-state" 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -qF "no-controller.yaml:5:3: error: host 'gpu1' (group 'compute') gets role slurm-common, which needs a host in group 'controller'" <<<"$out" &&
  ! grep -q "template" <<<"$out"; then
  pass "a compute group without a controller is an inventory error at the group's line"
else
  fail "compute without a controller: exit $rc; got: $out"
fi
expect "inventory check says it too" 2 "needs a host in group 'controller'" -- "$CLUSTERCTL" inventory check "$fd/no-controller.yaml"
cat >"$fd/grafana-elsewhere.yaml" <<'YAML'
cluster: c
vars:
  grafana_repository: https://apt.grafana.com
hosts:
  head: {address: 10.0.0.1}
groups:
  controller: {hosts: [head], roles: [grafana]}
YAML
expect "a monitoring role given to a group without a monitoring host is an inventory error" 2 \
  "gets role grafana, which needs a host in group 'monitoring', and that group has none (it is not defined)" -- \
  "$CLUSTERCTL" inventory check "$fd/grafana-elsewhere.yaml"

# --- item 5: did-you-mean for options
expect "a mistyped option gets the closest one" 2 "unknown option '--tag' of 'clusterctl deploy' (did you mean '--tags'?)" -- \
  "$CLUSTERCTL" deploy --tag slurm "$small"
expect "a mistyped option with =VALUE too" 2 "unknown option '--limt' of 'clusterctl plan' (did you mean '--limit'?)" -- \
  "$CLUSTERCTL" plan --limt=gpu01 "$small"
expect "an option far from any points to --help" 2 "unknown option '--zzzzzz' of 'clusterctl status' (see 'clusterctl status --help'" -- \
  "$CLUSTERCTL" status --zzzzzz "$small"

# --- item 8: history --run of a run that does not exist, --host honoured, summaries in words
expect "history --run of a missing run exits 2 and says so" 2 "no run 99999 in" -- \
  "$CLUSTERCTL" history "$small" --run 99999 --state "$fd/history-none"
expect "history --host of a host not in the inventory" 2 "--host nosuch: no such host in" -- \
  "$CLUSTERCTL" history "$small" --host nosuch --state "$fd/history-none"
cat >"$fd/two.yaml" <<'YAML'
cluster: t
connection: {user: root, connect_timeout: 3}
hosts:
  node[01-02]:
    address: 127.0.0.[2-3]
    connection: {port: 1}
groups:
  controller: {hosts: node01}
  compute: {hosts: node02}
YAML
"$CLUSTERCTL" plan "$fd/two.yaml" --limit node01 >/dev/null 2>&1
"$CLUSTERCTL" validate "$fd/two.yaml" --limit node02 --checks reachable >/dev/null 2>&1
out=$("$CLUSTERCTL" history "$fd/two.yaml" 2>&1)
if grep -qE '^2 +validate .* failed +0 passed, 1 failed, 0 skipped$' <<<"$out" && ! grep -q '{"' <<<"$out"; then
  pass "history shows a validate's summary in words, not JSON"
else
  fail "history's validate summary: got: $out"
fi
out=$("$CLUSTERCTL" history "$fd/two.yaml" --host node01 2>&1)
if grep -qE '^1 +plan ' <<<"$out" && ! grep -qE '^2 +validate' <<<"$out"; then
  pass "history --host lists only the runs that touched the host"
else
  fail "history --host node01: got: $out"
fi
out=$("$CLUSTERCTL" history "$fd/two.yaml" --run 2 --host node01 2>&1)
if ! grep -q node02 <<<"$out"; then pass "history --run N --host H shows nothing of other hosts"; else fail "history --run 2 --host node01: got: $out"; fi

# --- item 9: roles alone is roles list (with --json, with INVENTORY); vars
expect "roles --json" 0 '"name": "chrony"' -- "$CLUSTERCTL" roles --json
expect "roles INVENTORY" 0 "gpu[01-04]" -- "$CLUSTERCTL" roles "$small"
expect "a near miss of a roles subcommand is still a mistyped command" 2 "unknown command 'lsit' of 'clusterctl roles' (did you mean 'list'?)" -- \
  "$CLUSTERCTL" roles lsit
expect "vars lists every variable" 0 "validate_gpus_expected" -- "$CLUSTERCTL" vars
expect "vars NAME: type, default, declared by" 0 "declared by: role slurm-common" -- "$CLUSTERCTL" vars slurm_def_mem_per_cpu
out=$("$CLUSTERCTL" vars validate_gpus_expected "$small" 2>&1)
if grep -qF "declared by: validate" <<<"$out" && grep -qE "set in the inventory: .*small.yaml:[0-9]+ \(8\)" <<<"$out"; then
  pass "vars NAME INVENTORY: a validate variable and where the inventory sets it"
else
  fail "vars validate_gpus_expected INVENTORY: got: $out"
fi
expect "vars --role" 0 "chrony_allow" -- "$CLUSTERCTL" vars --role chrony
expect "vars of an unknown name suggests" 2 "unknown variable 'ntp_server' (did you mean 'ntp_servers'?)" -- "$CLUSTERCTL" vars ntp_server
expect "vars --json" 0 '"declared_by": "validate"' -- "$CLUSTERCTL" vars --json --role validate
sed 's/^vars:$/vars:\n  ntp_server: [x]/' "$small" >"$fd/unknown-var.yaml"
expect "the unknown-variable hint names a command that lists variables" 2 "(did you mean 'ntp_servers'?) (clusterctl vars lists the variables)" -- \
  "$CLUSTERCTL" inventory check "$fd/unknown-var.yaml"

# --- item 10: -e of a secret: one coherent error
out=$("$CLUSTERCTL" plan "$small" -e munge_key=abc --state "$fd/secret" 2>&1); rc=$?
if [ "$rc" -eq 2 ] && [ "$(grep -c 'error:' <<<"$out")" -eq 1 ] &&
  grep -qF "command line (-e munge_key=abc): error: 'munge_key' is a secret (role munge)" <<<"$out"; then
  pass "-e munge_key=abc is one error, naming where it came from"
else
  fail "-e munge_key=abc: exit $rc; got: $out"
fi

# --- item 11: a YAML error does not hide the other problems of the file
cat >"$fd/yaml-and-vars.yaml" <<'YAML'
cluster: c
vars:
  slurm_def_mem_per_cpu: lots
hosts:
  a: {address: 10.0.0.1
groups:
  compute: {hosts: [a]}
YAML
out=$("$CLUSTERCTL" inventory check "$fd/yaml-and-vars.yaml" 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -q "yaml-and-vars.yaml:6:.*YAML syntax error" <<<"$out" &&
  grep -qF "yaml-and-vars.yaml:3:26: error: variable slurm_def_mem_per_cpu must be an integer" <<<"$out"; then
  pass "a YAML syntax error and the variable errors above it, in one pass"
else
  fail "YAML error with variable errors: exit $rc; got: $out"
fi
cat >"$fd/duplicate.yaml" <<'YAML'
cluster: c
vars:
  slurm_def_mem_per_cpu: lots
  slurm_def_mem_per_cpu: 5
hosts:
  a: {address: 10.0.0.1, adress: x}
YAML
out=$("$CLUSTERCTL" inventory check "$fd/duplicate.yaml" 2>&1); rc=$?
if [ "$rc" -eq 2 ] && grep -qF "duplicate.yaml:4:3: error: duplicate key 'slurm_def_mem_per_cpu' (first at line 3)" <<<"$out" &&
  grep -qF "error: variable slurm_def_mem_per_cpu must be an integer" <<<"$out" && grep -qF "unknown key 'adress'" <<<"$out"; then
  pass "a duplicate key and the file's other problems, in one pass"
else
  fail "duplicate key with other problems: exit $rc; got: $out"
fi

# --- item 12: version, -V, completion, quote hints
expect "clusterctl version" 0 "agent protocol" -- "$CLUSTERCTL" version
expect "clusterctl -V" 0 "agent protocol" -- "$CLUSTERCTL" -V
expect "completion bash" 0 "complete -F _clusterctl clusterctl" -- "$CLUSTERCTL" completion bash
expect "completion zsh" 0 "#compdef clusterctl" -- "$CLUSTERCTL" completion zsh
expect "completion of another shell is a usage error" 2 "SHELL" -- "$CLUSTERCTL" completion fish
"$CLUSTERCTL" completion bash >"$fd/completion.bash"
complete_with() {  # complete_with WORD...: COMPREPLY for the last word, one a line
  (cd "$SRC" && PATH=$(dirname "$CLUSTERCTL"):$PATH bash -c 'source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _clusterctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$fd/completion.bash" "$@")
}
got=$(complete_with clusterctl deploy inventory/examples/small.yaml --tags slu)
grep -qx slurm <<<"$got" && pass "bash completes --tags with the roles' tags" || fail "--tags completion: got '$got'"
got=$(complete_with clusterctl deploy inventory/examples/small.yaml --roles chrony,mun)
grep -qx chrony,munge <<<"$got" && pass "bash completes --roles after a comma" || fail "--roles completion: got '$got'"
got=$(complete_with clusterctl validate inventory/examples/small.yaml --checks gpu.ec)
grep -qx gpu.ecc <<<"$got" && pass "bash completes --checks" || fail "--checks completion: got '$got'"
got=$(complete_with clusterctl roles show slurm-c)
grep -qx slurm-controller <<<"$got" && pass "bash completes roles show ROLE" || fail "roles show completion: got '$got'"
sed 's/^vars:$/vars:\n  slurm_version: 23.10/' "$small" >"$fd/version.yaml"
expect "a version read as a number gets a quote hint" 2 'not a number (23.1): YAML reads an unquoted number as a number, dropping trailing zeros (23.10 is 23.1); quote it: "23.10"' -- \
  "$CLUSTERCTL" inventory check "$fd/version.yaml"
sed 's/^  nvidia_driver_branch: "550"$/  nvidia_driver_branch: 550/' "$small" >"$fd/branch.yaml"
expect "a string written as a number gets a quote hint" 2 'variable nvidia_driver_branch must be a string, not an integer (550): YAML reads an unquoted number as a number; quote it: "550"' -- \
  "$CLUSTERCTL" inventory check "$fd/branch.yaml"

# --- item 7: a closed stdout never stops a run: it goes on, is recorded, exits with its status
mkdir -p "$fd/pipe"
cp "$fd/two.yaml" "$fd/pipe/inventory.yaml"
{ "$CLUSTERCTL" deploy "$fd/pipe/inventory.yaml"; echo $? >"$fd/pipe/rc"; } 2>/dev/null | head -c 0
rc=$(cat "$fd/pipe/rc")
out=$("$CLUSTERCTL" history "$fd/pipe/inventory.yaml" 2>&1)
if [ "$rc" -eq 1 ] && grep -qE '^1 +deploy .* failed +2 hosts, unreachable: 2$' <<<"$out"; then
  pass "deploy with its stdout closed runs to the end: exit 1 (its own status), recorded as failed, not running"
else
  fail "deploy with a closed stdout: exit $rc; history: $out"
fi

# --- item 2: an unreachable host is one row in validate; status fits the terminal
out=$("$CLUSTERCTL" validate "$fd/two.yaml" --state "$fd/validate-state" 2>&1); rc=$?
reachable_rows=$(grep -cE '^reachable +fail +node0[12] .*Connection refused \([0-9]+ checks not run\)$' <<<"$out")
if [ "$rc" -eq 1 ] && [ "$reachable_rows" -eq 2 ] && ! grep -q "not checked: node0" <<<"$out" &&
  grep -qE "failed, [0-9]+ skipped \([0-9]+ of the failures: checks not run on unreachable hosts; -o wide lists them\)$" <<<"$out" &&
  [ "$(wc -l <<<"$out")" -lt 40 ]; then
  pass "validate: each unreachable host is one row with its reason, the checks it blocks counted"
else
  fail "validate of unreachable hosts: exit $rc, $(wc -l <<<"$out") lines: $out"
fi
expect "validate -o wide lists every check" 1 "not checked: node02 is unreachable" -- \
  "$CLUSTERCTL" validate "$fd/two.yaml" -o wide --state "$fd/validate-state"
"$CLUSTERCTL" plan "$fd/two.yaml" --state "$fd/status-state" >/dev/null 2>&1
out=$(COLUMNS=60 "$CLUSTERCTL" status "$fd/two.yaml" --state "$fd/status-state" 2>&1)
# Characters, not bytes ("…" is 3 bytes); line 1 names the state's path.
widest=$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in list(sys.stdin)[1:]))' <<<"$out")
if [ "$widest" -le 60 ] && grep -q "…" <<<"$out"; then
  pass "status fits a 60-column terminal, cut cells end in an ellipsis"
else
  fail "status in 60 columns: widest line $widest; got: $out"
fi
expect "status -o wide keeps every cell whole" 0 "127.0.0.3:1: connect: Connection refused" -- \
  env COLUMNS=60 "$CLUSTERCTL" status "$fd/two.yaml" -o wide --state "$fd/status-state"

# --- item 6: a retried connection is said at -v, with its reason (a server
# that sends an SSH banner and closes, as an overloaded sshd does)
if command -v python3 >/dev/null; then
  python3 - "$fd/banner.port" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(20)
try:
    while True:
        c, _ = s.accept(); c.sendall(b"SSH-2.0-OpenSSH_9.2\r\n"); c.close()
except Exception:
    pass
PY
  banner_pid=$!
  for _ in $(seq 50); do [ -s "$fd/banner.port" ] && break; sleep 0.1; done
  cat >"$fd/banner.yaml" <<YAML
cluster: t
connection: {user: root, connect_timeout: 1}
hosts:
  node01: {address: 127.0.0.1, connection: {port: $(cat "$fd/banner.port")}}
groups:
  controller: {hosts: node01}
YAML
  out=$("$CLUSTERCTL" facts -v "$fd/banner.yaml" --state "$fd/banner-state" 2>&1)
  kill "$banner_pid" 2>/dev/null; wait "$banner_pid" 2>/dev/null
  if grep -qE "node01: connection attempt 1 of 8 failed \(.+\); retrying in [0-9]+ ms" <<<"$out"; then
    pass "-v says each retried connection and why"
  else
    fail "-v and a server that closes after its banner: got: $out"
  fi
else
  echo "skip - python3 is not installed: the retry message was not checked"
fi
