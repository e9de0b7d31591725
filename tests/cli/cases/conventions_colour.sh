# --color=auto|always|never on deploy and plan; a bad value is a usage error.
expect "--color takes auto, always or never" 2 "--color" -- "$CLUSTERCTL" plan "$SRC/inventory/examples/small.yaml" --color=sometimes
"$CLUSTERCTL" plan --help | grep -q -- "--color WHEN:{auto,always,never}=auto" && pass "plan --help shows --color and its default" ||
  fail "plan --help: $("$CLUSTERCTL" plan --help | grep -- --color)"
