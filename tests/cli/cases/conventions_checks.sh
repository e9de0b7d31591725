# clusterctl checks: the validation catalogue.
expect "checks lists the catalogue" 0 "gpu.xid" -- "$CLUSTERCTL" checks
expect "checks names the scopes" 0 "cluster" -- "$CLUSTERCTL" checks
"$CLUSTERCTL" checks --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert all(set(c)=={"name","scope","summary"} for c in d["checks"]) and len(d["checks"])>5' &&
  pass "checks --json is one document of name, scope, summary" || fail "checks --json"
expect "checks takes no inventory" 2 "" -- "$CLUSTERCTL" checks extra
