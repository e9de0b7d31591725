# validate --level (issue 51): the acceptance checks run only at the acceptance level, and its
# options are refused elsewhere, before anything is contacted.
small="$SRC/inventory/examples/small.yaml"
expect "an acceptance check named at the functional level is refused with the hint" 2 \
  "'net.iperf3' is an acceptance check: it runs with --level acceptance" -- "$CLUSTERCTL" validate "$small" --checks net.iperf3
expect "--drain-failed needs the acceptance level" 2 "(--level acceptance)" -- "$CLUSTERCTL" validate "$small" --drain-failed
expect "--duration needs the acceptance level" 2 "--duration times the acceptance measurements" -- \
  "$CLUSTERCTL" validate "$small" --duration 30s
expect "an unknown level is a usage error" 2 "--level" -- "$CLUSTERCTL" validate "$small" --level burnin
"$CLUSTERCTL" validate --help | grep -q -- "--duration DURATION" && pass "validate --help names --duration's DURATION" ||
  fail "validate --help: $("$CLUSTERCTL" validate --help | grep -- --duration)"
