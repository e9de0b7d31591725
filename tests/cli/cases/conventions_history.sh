# history -n/--runs N (the long form is not --limit: that selects hosts elsewhere).
expect "history --runs N" 0 "" -- "$CLUSTERCTL" history --runs 3 "$SRC/inventory/examples/small.yaml" --state "$WORK/history-none"
expect "history -n N" 0 "" -- "$CLUSTERCTL" history -n 3 "$SRC/inventory/examples/small.yaml" --state "$WORK/history-none"
expect "history --limit is gone" 2 "--limit" -- "$CLUSTERCTL" history --limit 3 "$SRC/inventory/examples/small.yaml"
