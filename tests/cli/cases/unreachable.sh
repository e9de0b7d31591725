# Hosts that cannot be reached (issue 32): refused connections on loopback
# addresses (nothing listens on port 1), so no case waits for a timeout.
mkdir -p "$WORK/unreachable"
unreachable_inv="$WORK/unreachable/inventory.yaml"
cat >"$unreachable_inv" <<'YAML'
cluster: t
connection: {user: root, connect_timeout: 3}
hosts:
  node[01-03]:
    address: 127.0.0.[2-4]
    connection: {port: 1}
groups:
  controller: {hosts: node01}
  compute: {hosts: "node[02-03]"}
YAML

expect "a plan of unreachable hosts exits 1 and says they could not be planned" 1 \
  "Plan: 0 steps would change on 0 of 3 hosts; 3 hosts could not be planned (node[01-03])" -- \
  "$CLUSTERCTL" plan "$unreachable_inv"

# Each host once: its error is printed when it is refused, not again in the
# plan or the recap (which count and list hosts in range notation).
for command in plan deploy; do
  out=$("$CLUSTERCTL" "$command" "$unreachable_inv" 2>/dev/null)
  rc=$?
  if [ "$rc" -eq 1 ] && [ "$(grep -c '127.0.0.3:1' <<<"$out")" -eq 1 ] &&
    grep -qx 'node02 UNREACHABLE: 127.0.0.3:1: connect: Connection refused' <<<"$out" &&
    grep -q 'unreachable=3' <<<"$out" && ! grep -q 'cannot plan' <<<"$out"; then
    pass "$command prints each unreachable host once"
  else
    fail "$command prints each unreachable host once: exit $rc; got: $out"
  fi
done

# The history says what happened to a run whose hosts were all unreachable
# (the runs above), never "failed: 0".
out=$("$CLUSTERCTL" history "$unreachable_inv" 2>&1)
if grep -qE 'deploy .* failed +3 hosts, unreachable: 3$' <<<"$out" && grep -qE 'plan .* failed +3 hosts, unreachable: 3$' <<<"$out" &&
  ! grep -q '"failed":0' <<<"$out"; then
  pass "history says a run's hosts were unreachable"
else
  fail "history says a run's hosts were unreachable: got: $out"
fi

# status: a host a plan could not reach is "unreachable" since then, not
# "never deployed" (a state of its own, where only a plan ran).
"$CLUSTERCTL" plan "$unreachable_inv" --state "$WORK/unreachable/plan-only" >/dev/null 2>&1
out=$("$CLUSTERCTL" status "$unreachable_inv" --state "$WORK/unreachable/plan-only" 2>&1)
if grep -qE '^node02 +127\.0\.0\.3 +unreachable +[0-9]{4}-[0-9]{2}-[0-9]{2} ' <<<"$out" &&
  grep -q '127.0.0.3:1: connect: Connection refused' <<<"$out" && ! grep -q 'never deployed' <<<"$out"; then
  pass "status shows a host a plan could not reach as unreachable since then"
else
  fail "status after a plan of unreachable hosts: got: $out"
fi
