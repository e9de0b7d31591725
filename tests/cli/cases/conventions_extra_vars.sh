# -e/--extra-vars KEY=VALUE or @FILE on deploy, plan and validate.
small="$SRC/inventory/examples/small.yaml"
expect "-e without = is a usage error" 2 "is not KEY=VALUE" -- "$CLUSTERCTL" plan "$small" -e novalue --state "$WORK/extra"
expect "-e with an unreadable @FILE is a usage error" 2 "missing.yaml" -- "$CLUSTERCTL" validate "$small" -e @"$WORK/missing.yaml" --state "$WORK/extra"
expect "-e naming a secret is refused" 2 "'grafana_admin_password' is a secret" -- "$CLUSTERCTL" plan "$small" -e grafana_admin_password=x --state "$WORK/extra"
# A validate threshold of the wrong type given with -e is refused as an inventory one would be.
expect "-e values are checked like inventory values" 2 "validate_" -- "$CLUSTERCTL" validate "$small" -e validate_clock_offset_max_ms=many --state "$WORK/extra"
"$CLUSTERCTL" deploy --help | grep -q -- "-e,--extra-vars VARS" && pass "deploy --help shows -e" || fail "deploy --help lacks -e"
