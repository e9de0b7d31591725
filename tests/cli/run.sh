#!/usr/bin/env bash
# End-to-end tests of the clusterctl command line as a user runs it: exit
# codes, messages on stderr, and what is (not) created on disk.
# Usage: tests/cli/run.sh PATH/TO/clusterctl
set -u
CLUSTERCTL=$(realpath "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/clusterctl-cli-XXXXXX)
HOLDER_PID=""
cleanup() {
  [ -n "$HOLDER_PID" ] && kill "$HOLDER_PID" 2>/dev/null
  mountpoint -q "$WORK/tiny" 2>/dev/null && umount "$WORK/tiny"
  rm -rf "$WORK"
}
trap cleanup EXIT

failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }

# expect NAME EXIT_CODE STDERR_SUBSTRING -- COMMAND...
expect() {
  local name=$1 code=$2 needle=$3
  shift 4
  local out err rc
  out=$("$@" 2>"$WORK/stderr"); rc=$?
  err=$(cat "$WORK/stderr")
  if [ "$rc" -ne "$code" ]; then
    fail "$name: exit $rc, expected $code; stderr: $err"
  elif [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$err$out"; then
    fail "$name: output lacks '$needle'; got: $err$out"
  else
    pass "$name"
  fi
}

# --- the bundled examples pass --------------------------------------------
for f in "$SRC"/inventory/examples/*.yaml; do
  expect "inventory check $(basename "$f")" 0 "ok: cluster" -- "$CLUSTERCTL" inventory check "$f"
done
expect "inventory show --json is JSON" 0 '"cluster": "small"' -- "$CLUSTERCTL" inventory show --json "$SRC/inventory/examples/small.yaml"

# --- bad input: exit 2 with file:line:column -------------------------------
bad() { printf '%s' "$2" >"$WORK/$1.yaml"; }
bad typo 'cluster: c
hosts:
  a:
    adress: 10.0.0.1
'
expect "unknown key with suggestion" 2 "typo.yaml:4:5: error: unknown key 'adress' in host 'a' (did you mean 'address'?)" -- "$CLUSTERCTL" inventory check "$WORK/typo.yaml"
bad empty-vars 'cluster: c
vars:
hosts:
  a: {address: 10.0.0.1}
'
expect "an empty vars: is no variables" 0 "ok: cluster 'c', 1 hosts" -- "$CLUSTERCTL" inventory check "$WORK/empty-vars.yaml"
bad overlap 'cluster: c
hosts:
  gpu[01-10]: {}
  gpu[05-20]: {}
'
expect "overlapping ranges" 2 "overlap.yaml:4:3: error: host 'gpu05' is defined twice (overlapping ranges" -- "$CLUSTERCTL" inventory check "$WORK/overlap.yaml"
bad cycle 'cluster: c
hosts:
  a: {}
groups:
  x: {children: [y]}
  y: {children: [x]}
'
expect "group cycle" 2 "error: groups form a cycle: x -> y -> x" -- "$CLUSTERCTL" inventory check "$WORK/cycle.yaml"
bad keyfile 'cluster: c
connection:
  key_file: keys/nope
hosts:
  a: {}
'
expect "missing key file" 2 "keyfile.yaml:3:13: error: key file 'keys/nope' not found" -- "$CLUSTERCTL" inventory check "$WORK/keyfile.yaml"
expect "missing inventory file" 2 "inventory file not found" -- "$CLUSTERCTL" inventory check "$WORK/none.yaml"
expect "unknown subcommand" 2 "Run 'clusterctl --help'" -- "$CLUSTERCTL" inventroy check x

# --- hostile input: rejected, exit 2, in bounded time ----------------------
{ printf 'cluster: c\nvars:\n  x: '; head -c 16384 /dev/zero | tr '\0' '['; head -c 16384 /dev/zero | tr '\0' ']'; printf '\nhosts:\n  a: {}\n'; } >"$WORK/deep.yaml"
expect "16384 levels of nesting" 2 "nesting" -- timeout 10 "$CLUSTERCTL" inventory check "$WORK/deep.yaml"
{
  printf 'cluster: c\nvars:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n'
  prev=a
  for c in b c d e f g h i j; do
    printf '  %s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n' $c $c $prev $prev $prev $prev $prev $prev $prev $prev $prev
    prev=$c
  done
  printf 'hosts:\n  a: {}\n'
} >"$WORK/bomb.yaml"
expect "billion laughs" 2 "billion laughs" -- timeout 30 "$CLUSTERCTL" inventory check "$WORK/bomb.yaml"
head -c $((50 * 1024 * 1024)) /dev/zero | tr '\0' 'x' >"$WORK/big.yaml"
expect "50 MB file" 2 "file is larger than 16 MiB" -- timeout 10 "$CLUSTERCTL" inventory check "$WORK/big.yaml"
head -c 200000 /dev/urandom >"$WORK/junk.yaml"
expect "binary junk" 2 "error:" -- timeout 10 "$CLUSTERCTL" inventory check "$WORK/junk.yaml"
printf 'cluster: caf\xe9\nhosts:\n  a: {}\n' >"$WORK/latin1.yaml"
expect "invalid UTF-8" 2 "latin1.yaml:1:13: error: invalid UTF-8" -- timeout 10 "$CLUSTERCTL" inventory check "$WORK/latin1.yaml"

# --- log levels: -q shows errors only, -v debug too; a bad level is a usage error
bad warn 'cluster: c
hosts:
  a: {}
groups:
  computes: {hosts: [a]}
'
expect "a warning is shown by default" 0 "warning: group 'computes' is not a group clusterctl's roles know (did you mean 'compute'?)" -- \
  "$CLUSTERCTL" inventory check "$WORK/warn.yaml"
"$CLUSTERCTL" inventory check -q "$WORK/warn.yaml" >"$WORK/quiet.out" 2>"$WORK/quiet.err"; rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$WORK/quiet.err" ] && grep -q "ok: cluster 'c'" "$WORK/quiet.out" &&
  pass "-q hides the warning, stdout unchanged" || fail "-q: exit $rc, stderr: $(cat "$WORK/quiet.err")"
expect "--log-level warning keeps the warning" 0 "warning: group 'computes'" -- \
  "$CLUSTERCTL" inventory check --log-level warning "$WORK/warn.yaml"
expect "-q still shows errors" 2 "typo.yaml:4:5: error: unknown key 'adress'" -- "$CLUSTERCTL" inventory check -q "$WORK/typo.yaml"
expect "--log-level bogus is a usage error" 2 "--log-level" -- "$CLUSTERCTL" inventory check --log-level bogus "$WORK/warn.yaml"
expect "-q and -v together are a usage error" 2 "excludes" -- "$CLUSTERCTL" status -q -v "$WORK/warn.yaml"

# --- validate: bad input exits 2 before anything is contacted or created ---
mkdir -p "$WORK/validate"
cp "$SRC/inventory/examples/small.yaml" "$WORK/validate/inventory.yaml"
expect "validate --checks with an unknown check" 2 "unknown check 'gpu.eccs' (did you mean 'gpu.ecc'?)" -- \
  "$CLUSTERCTL" validate "$WORK/validate/inventory.yaml" --checks slurm,gpu.eccs
sed 's/^vars:$/vars:\n  validate_ib_ports: mlx5_0/' "$SRC/inventory/examples/small.yaml" >"$WORK/validate/bad.yaml"
expect "validate with a threshold of the wrong type" 2 "variable validate_ib_ports must be a list, not a string (mlx5_0) (validate)" -- \
  "$CLUSTERCTL" validate "$WORK/validate/bad.yaml"
if [ -e "$WORK/validate/.clusterctl" ]; then fail "a refused validate created a state"; else pass "a refused validate created nothing"; fi

# --- inventory values that would break the files they land in: exit 2 -------
mkdir -p "$WORK/values"
hostile() {  # hostile NAME 'VARS YAML' EXPECTED
  { sed -n '1,/^vars:$/p' "$SRC/inventory/examples/small.yaml"; printf '%s\n' "$2"; sed -n '/^vars:$/,$p' "$SRC/inventory/examples/small.yaml" | tail -n +2; } >"$WORK/values/$1.yaml"
  expect "inventory check refuses $1" 2 "$3" -- "$CLUSTERCTL" inventory check "$WORK/values/$1.yaml"
}
hostile newline '  slurm_def_mem_per_cpu: "1024\nPartitionName=evil Nodes=ALL"' "newline.yaml:12:26: error: variable slurm_def_mem_per_cpu must be an integer, not a string (1024\\x0aPartitionName=evil Nodes=ALL) (role slurm-common)"
hostile sql '  slurmdbd_database: "x; DROP DATABASE mysql; --"' "variable 'slurmdbd_database' (x; DROP DATABASE mysql; --) is not plain letters, digits and '_': in SQL it could end the statement it is part of (slurmdbd-grants.sql.mustache)"
hostile state_dir '  slurm_state_dir: "/var/spool/slurmctld\nSlurmUser=root"' "state_dir.yaml:12:20: error: variable 'slurm_state_dir' (/var/spool/slurmctld\\x0aSlurmUser=root) contains a line break: it would add a line to the file (slurm.conf.mustache)"
sed 's/^    - name: gpu$/    - name: "gpu\\nNodeName=evil"/' "$SRC/inventory/examples/small.yaml" >"$WORK/values/partition.yaml"
expect "inventory check refuses a partition name with a line break" 2 "cluster.slurm: slurm partition 'gpu\\x0aNodeName=evil': a name is letters, digits, '_', '-' and '.'" -- "$CLUSTERCTL" inventory check "$WORK/values/partition.yaml"
hostile ports '  chrony_allow: "10.0.0.0/8"' "variable chrony_allow must be a list, not a string (10.0.0.0/8) (role chrony)"
hostile package '  munge_package: "-oDPkg::Pre-Invoke::=touch /tmp/owned"' "package.yaml:12:18: error: variable 'munge_package': '-oDPkg::Pre-Invoke::=touch /tmp/owned' is not a package name (it would be read as an option)"
hostile packages '  slurm_packages: [slurm-client, "--root=/tmp"]' "variable 'slurm_packages': '--root=/tmp' is not a package name (it would be read as an option)"
hostile key_file '  grafana_repository: https://apt.grafana.com
  grafana_repository_key_file: /root/.ssh/id_ed25519' "error: variable 'grafana_repository_key_file': '/root/.ssh/id_ed25519' resolves to /root/.ssh/id_ed25519, outside the inventory's directory"
hostile bundle '  rdma_stack: mlnx_ofed
  rdma_ofed_bundle: ../../etc/shadow' "variable 'rdma_ofed_bundle': '../../etc/shadow' resolves to"
# Values take the syntax of the file they land in, and of their variable where
# the role declares one (issue 31, item 11): checked here, not on the nodes.
hostile select '  slurm_select_parameters: "CR_Core_Memory Prolog=/tmp/evil.sh"' "select.yaml:12:28: error: variable 'slurm_select_parameters' (CR_Core_Memory Prolog=/tmp/evil.sh) contains a space: a slurm.conf value is one word, the rest would be read as more KEY=VALUE settings (slurm.conf.mustache)"
hostile scrape '  prometheus_scrape_interval: "15s\nscrape_configs: []"' "scrape.yaml:12:31: error: variable prometheus_scrape_interval (15s\\x0ascrape_configs: []) is not a duration"
hostile dcgm_listen '  dcgm_exporter_listen: "0.0.0.0:9400 DCGM_EXPORTER_KUBERNETES=true"' "variable dcgm_exporter_listen (0.0.0.0:9400 DCGM_EXPORTER_KUBERNETES=tr...) is not ADDRESS:PORT"
hostile grafana_listen '  grafana_listen: "0.0.0.0 ;x"' "variable grafana_listen (0.0.0.0 ;x) is not an address"
hostile retention '  prometheus_retention: "15d --web.enable-admin-api"' "variable prometheus_retention (15d --web.enable-admin-api) is not a duration"
hostile textfile_dir '  node_exporter_textfile_dir: "/tmp --collector.disable-defaults"' "variable node_exporter_textfile_dir (/tmp --collector.disable-defaults) is not an absolute path"
hostile slurm_exporter_listen '  slurm_exporter_listen: "0.0.0.0:9341 --timeout 0"' "variable slurm_exporter_listen (0.0.0.0:9341 --timeout 0) is not ADDRESS:PORT"
cp "$WORK/values/sql.yaml" "$WORK/values/deploy.yaml"
expect "deploy refuses a hostile value before touching anything" 2 "nothing was changed" -- "$CLUSTERCTL" deploy "$WORK/values/deploy.yaml"
if [ -e "$WORK/values/.clusterctl" ]; then fail "a refused deploy created a state"; else pass "a refused deploy created nothing"; fi

# --- a clusterctl without its built-in roles says where it looked -----------
mkdir -p "$WORK/no-data"
expect "no built-in roles: the warning names the directory searched" 2 \
  "warning: no built-in roles found: looked for roles/ in $WORK/no-data (CLUSTERCTL_DATA_DIR)" -- \
  env CLUSTERCTL_DATA_DIR="$WORK/no-data" "$CLUSTERCTL" plan "$SRC/inventory/examples/small.yaml" --roles chrony --state "$WORK/no-data/state"
expect "no built-in roles: inventory check warns too" 0 "warning: no built-in roles found" -- \
  env CLUSTERCTL_DATA_DIR="$WORK/no-data" "$CLUSTERCTL" inventory check "$SRC/inventory/examples/small.yaml"
expect "no built-in roles: --roles chrony is unknown, nothing contacted" 2 "unknown role 'chrony'" -- \
  env CLUSTERCTL_DATA_DIR="$WORK/no-data" "$CLUSTERCTL" plan "$SRC/inventory/examples/small.yaml" --roles chrony --state "$WORK/no-data/state"

# --- conventions: a mistyped command, help COMMAND, usage points to the command's help
expect "a mistyped command gets did you mean, exit 2" 2 "unknown command 'deplyo' (did you mean 'deploy'?)" -- \
  "$CLUSTERCTL" deplyo "$SRC/inventory/examples/small.yaml"
expect "a mistyped nested command too" 2 "unknown command 'chek' of 'clusterctl inventory' (did you mean 'check'?)" -- \
  "$CLUSTERCTL" inventory chek "$SRC/inventory/examples/small.yaml"
expect "help COMMAND prints that command's help" 0 "Usage: deploy [OPTIONS] [INVENTORY]" -- "$CLUSTERCTL" help deploy
expect "help of a nested command" 0 "validate an inventory" -- "$CLUSTERCTL" help inventory check
expect "help of an unknown command is a usage error listing the commands" 2 "unknown command 'bogus' (commands: inventory," -- \
  "$CLUSTERCTL" help bogus
expect "a usage error points to the subcommand's --help" 2 "Run 'clusterctl deploy --help' for usage." -- "$CLUSTERCTL" deploy

# Both architectures where the build made the aarch64 agent (cmake/Aarch64NodePrograms.cmake).
builds="x86_64 "
aarch64_agent="$(dirname "$CLUSTERCTL")/clusterctl-agent-aarch64"
[ -f "$aarch64_agent" ] && builds="aarch64 $aarch64_agent, x86_64 "
expect "--version names the commit, the agent protocol and the agent builds" 0 "agent builds: $builds" -- "$CLUSTERCTL" --version
"$CLUSTERCTL" --version | head -1 | grep -qE '^clusterctl [0-9.]+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)$' &&
  pass "--version's first line: clusterctl VERSION (commit ID)" || fail "--version's first line: $("$CLUSTERCTL" --version | head -1)"

# --- usage errors exit 2 everywhere
expect "hostkey forget of a host not in the inventory is a usage error" 2 "host 'gpu1' is not in" -- \
  "$CLUSTERCTL" hostkey forget "$SRC/inventory/examples/small.yaml" gpu1 --state "$WORK/usage-state"
test ! -e "$WORK/usage-state" && pass "hostkey forget of an unknown host created no state" || fail "hostkey forget of an unknown host created $WORK/usage-state"
expect "deploy --rotate-secret of a secret no role declares is a usage error" 2 "--rotate-secret bogus: no role in use declares it" -- \
  "$CLUSTERCTL" deploy "$SRC/inventory/examples/small.yaml" --rotate-secret bogus --state "$WORK/usage-state2"

# --- status on an empty state: exit 0, nothing created ---------------------
mkdir -p "$WORK/site"
cp "$SRC/inventory/examples/small.yaml" "$WORK/site/inventory.yaml"
expect "status with no state" 0 "6 never deployed: gpu[01-04],head01,login01" -- "$CLUSTERCTL" status "$WORK/site/inventory.yaml"
if [ -e "$WORK/site/.clusterctl" ]; then fail "status created a state directory"; else pass "status created nothing"; fi
expect "status --json" 0 '"has_state": false' -- "$CLUSTERCTL" status --json "$WORK/site/inventory.yaml"

# --- one writer at a time ----------------------------------------------------
"$CLUSTERCTL" hold "$WORK/site/inventory.yaml" --reason "cli test" -- sleep 30 >/dev/null 2>"$WORK/holder.err" &
HOLDER_PID=$!
for _ in $(seq 50); do grep -q "holding the state" "$WORK/holder.err" 2>/dev/null && break; sleep 0.1; done
expect "second writer exits 3 naming the holder" 3 "is held by pid $HOLDER_PID on $(hostname) since" -- "$CLUSTERCTL" hold "$WORK/site/inventory.yaml" -- true
expect "status works while a writer holds the state" 0 "6 never deployed" -- "$CLUSTERCTL" status "$WORK/site/inventory.yaml"
held_command=$(cat /proc/"$HOLDER_PID"/task/*/children 2>/dev/null)
kill -9 "$HOLDER_PID"; wait "$HOLDER_PID" 2>/dev/null; HOLDER_PID=""
[ -n "$held_command" ] && kill $held_command 2>/dev/null  # the orphaned 'sleep 30', by pid
expect "the lock of a killed holder is cleared" 0 "ended without releasing it; the lock was cleared" -- "$CLUSTERCTL" hold "$WORK/site/inventory.yaml" -- true
mode=$(stat -c %a "$WORK/site/.clusterctl/secrets")
[ "$mode" = 700 ] && pass "secrets/ is 0700" || fail "secrets/ has mode $mode"
expect "hold passes the command's exit code" 7 "" -- "$CLUSTERCTL" hold "$WORK/site/inventory.yaml" -- sh -c "exit 7"
"$CLUSTERCTL" hold "$WORK/site/inventory.yaml" -- sleep 30 >/dev/null 2>"$WORK/holder2.err" &
HOLDER_PID=$!
for _ in $(seq 50); do grep -q "holding the state" "$WORK/holder2.err" 2>/dev/null && break; sleep 0.1; done
kill -TERM "$HOLDER_PID"; wait "$HOLDER_PID"; rc=$?; HOLDER_PID=""
[ "$rc" -eq 143 ] && pass "SIGTERM ends the held command (exit 143)" || fail "SIGTERM: exit $rc, expected 143"
expect "a terminated hold released its lock cleanly" 0 "released the state" -- "$CLUSTERCTL" hold "$WORK/site/inventory.yaml" -- true
grep -q "ended without releasing" "$WORK/stderr" && fail "terminated hold left a stale lock" || pass "no stale lock after SIGTERM"

# --- a damaged, newer or incomplete state is refused, nothing changed -------
mkdir -p "$WORK/states"
fresh_state() {  # fresh_state NAME: a site with a state (made by hold), its inventory path on stdout
  mkdir -p "$WORK/states/$1"
  cp "$SRC/inventory/examples/small.yaml" "$WORK/states/$1/inventory.yaml"
  "$CLUSTERCTL" hold "$WORK/states/$1/inventory.yaml" -- true >/dev/null 2>&1
  echo "$WORK/states/$1/inventory.yaml"
}
inv=$(fresh_state header)
printf 'this is not SQLite at all.......' | dd of="$WORK/states/header/.clusterctl/state.db" bs=1 conv=notrunc 2>/dev/null
expect "a state.db that is not a database is refused" 1 "is damaged (" -- "$CLUSTERCTL" deploy "$inv"
expect "status says so too" 1 "is damaged (" -- "$CLUSTERCTL" status "$inv"
inv=$(fresh_state pages)
dd if=/dev/urandom of="$WORK/states/pages/.clusterctl/state.db" bs=4096 seek=3 count=2 conv=notrunc 2>/dev/null
expect "a state.db with damaged pages is refused" 1 "integrity check:" -- "$CLUSTERCTL" deploy "$inv"
inv=$(fresh_state newer)
sqlite3 "$WORK/states/newer/.clusterctl/state.db" 'PRAGMA user_version = 99'
expect "a state.db from a newer clusterctl is refused" 1 "schema version 99, written by a newer clusterctl" -- "$CLUSTERCTL" deploy "$inv"
inv=$(fresh_state secret)
sqlite3 "$WORK/states/secret/.clusterctl/state.db" "INSERT INTO secrets (name, recorded_at) VALUES ('munge_key', 0)"
expect "a recorded secret that is gone is refused, not generated anew" 1 "secret munge_key was generated by an earlier deploy and $WORK/states/secret/.clusterctl/secrets/munge_key is gone; nothing was changed" -- "$CLUSTERCTL" deploy "$inv"
if [ -e "$WORK/states/secret/.clusterctl/secrets/munge_key" ]; then fail "a new munge key was generated"; else pass "no new munge key was generated"; fi
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$WORK/tiny" && mount -t tmpfs -o size=512k tmpfs "$WORK/tiny"
  cp "$SRC/inventory/examples/small.yaml" "$WORK/tiny/inventory.yaml"
  "$CLUSTERCTL" hold "$WORK/tiny/inventory.yaml" -- true >/dev/null 2>&1
  head -c 600000 /dev/zero >"$WORK/tiny/filler" 2>/dev/null
  expect "a full state directory is a clear error" 1 "No space left on device" -- "$CLUSTERCTL" hold "$WORK/tiny/inventory.yaml" -- true
  rm -f "$WORK/tiny/filler"
  check_db=$(sqlite3 "$WORK/tiny/.clusterctl/state.db" 'PRAGMA integrity_check')
  [ "$check_db" = ok ] && pass "the state is intact after the disk filled" || fail "the state is damaged: $check_db"
  expect "with room again the state works" 0 "released the state" -- "$CLUSTERCTL" hold "$WORK/tiny/inventory.yaml" -- true
  umount "$WORK/tiny"
fi

# --- import ------------------------------------------------------------------
expect "import a DeepOps inventory" 0 "group 'slurm-master' imported as 'controller'" -- "$CLUSTERCTL" inventory import --cluster lab -o "$WORK/imported.yaml" "$SRC/inventory/examples/deepops-inventory.ini"
expect "import refuses to overwrite" 2 "use --force" -- "$CLUSTERCTL" inventory import -o "$WORK/imported.yaml" "$SRC/inventory/examples/deepops-inventory.ini"
sed -i 's|key_file: ~/.ssh/id_rsa|key_file: /dev/null|' "$WORK/imported.yaml"
expect "imported inventory is valid" 2 "key file '/dev/null' not found" -- "$CLUSTERCTL" inventory check "$WORK/imported.yaml"
touch "$WORK/id_rsa"; sed -i "s|key_file: /dev/null|key_file: $WORK/id_rsa|" "$WORK/imported.yaml"
expect "imported inventory is valid with its key" 0 "compute: gpu[01-04]" -- "$CLUSTERCTL" inventory check "$WORK/imported.yaml"

# --- man page and completions, generated from the command definitions --------
GEN=$(dirname "$CLUSTERCTL")/generated  # what the build wrote (target clusterctl-generated)
if [ ! -f "$GEN/clusterctl.1" ]; then   # a build of clusterctl alone: generate them here
  GEN=$WORK/generated && mkdir -p "$GEN"
  "$CLUSTERCTL" __generate man >"$GEN/clusterctl.1"
  "$CLUSTERCTL" __generate bash >"$GEN/clusterctl.bash-completion"
  "$CLUSTERCTL" __generate zsh >"$GEN/_clusterctl"
fi
if "$CLUSTERCTL" --help | grep -q __; then fail "--help lists a hidden command"; else pass "--help hides __generate and __complete-names"; fi
expect "__generate refuses an unknown format" 2 "FORMAT" -- "$CLUSTERCTL" __generate nroff
names=$("$CLUSTERCTL" __complete-names "$WORK/none.yaml" 2>&1); rc=$?
[ "$rc" -eq 0 ] && [ -z "$names" ] && pass "__complete-names of a missing inventory: nothing, exit 0" ||
  fail "__complete-names of a missing inventory: exit $rc, printed: $names"
if man --version >/dev/null 2>&1; then
  warnings=$(MANWIDTH=80 man --warnings -l "$GEN/clusterctl.1" 2>&1 >/dev/null)
  [ -z "$warnings" ] && pass "man -l clusterctl.1 renders without warnings" || fail "man warns: $warnings"
else
  echo "skip - man is not installed (man-db): the man page was not rendered"
fi
bash -n "$GEN/clusterctl.bash-completion" && pass "bash -n clusterctl.bash-completion" || fail "bash -n clusterctl.bash-completion"
if command -v zsh >/dev/null; then
  zsh -n "$GEN/_clusterctl" && pass "zsh -n _clusterctl" || fail "zsh -n _clusterctl"
else
  echo "skip - zsh is not installed: _clusterctl was not parsed"
fi
complete_words() {  # complete_words WORD...: COMPREPLY for the last word, one a line
  (cd "$SRC" && PATH=$(dirname "$CLUSTERCTL"):$PATH bash -c 'source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _clusterctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$GEN/clusterctl.bash-completion" "$@")
}
got=$(complete_words clusterctl deploy inventory/examples/small.yaml --limit '')
grep -qx head01 <<<"$got" && grep -qx compute <<<"$got" && pass "bash completes --limit with the inventory's hosts and groups" ||
  fail "bash completion of --limit: got '$got'"
got=$(complete_words clusterctl deploy inventory/examples/small.yaml -l gpu01,lo)
[ "$(sort <<<"$got" | tr '\n' ' ')" = "gpu01,login gpu01,login01 " ] && pass "bash completes the term after a comma" ||
  fail "bash completion after a comma: got '$got'"
got=$(complete_words clusterctl inventory '')
[ "$(tr '\n' ' ' <<<"$got")" = "check show import " ] && pass "bash completes nested subcommands" ||
  fail "bash completion of inventory's subcommands: got '$got'"

# --- further cases, one file per topic (they use expect/pass/fail, $WORK, $SRC) --
for cases in "$SRC"/tests/cli/cases/*.sh; do
  [ -e "$cases" ] || continue
  echo "# $(basename "$cases")"
  # shellcheck source=/dev/null
  source "$cases"
done

echo
if [ "$failures" -ne 0 ]; then echo "$failures CLI test(s) failed"; exit 1; fi
echo "all CLI tests passed"
