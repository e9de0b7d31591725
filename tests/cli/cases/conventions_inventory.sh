# The inventory: INVENTORY, -i/--inventory FILE, or CLUSTERCTL_INVENTORY.
small="$SRC/inventory/examples/small.yaml"
expect "-i names the inventory" 0 "ok: cluster" -- "$CLUSTERCTL" inventory check -i "$small"
expect "--inventory names the inventory" 0 "ok: cluster" -- "$CLUSTERCTL" inventory check --inventory "$small"
expect "CLUSTERCTL_INVENTORY is the default" 0 "ok: cluster" -- env CLUSTERCTL_INVENTORY="$small" "$CLUSTERCTL" inventory check
expect "INVENTORY wins over CLUSTERCTL_INVENTORY" 2 "" -- env CLUSTERCTL_INVENTORY="$small" "$CLUSTERCTL" inventory check "$WORK/missing.yaml"
expect "INVENTORY and the same -i" 0 "ok: cluster" -- "$CLUSTERCTL" inventory check "$small" -i "$small"
expect "INVENTORY and a different -i is a usage error" 2 "two inventories" -- "$CLUSTERCTL" status "$small" -i "$WORK/other.yaml"
expect "no inventory at all names the three ways" 2 "give it as INVENTORY, with -i/--inventory FILE, or in CLUSTERCTL_INVENTORY" -- env -u CLUSTERCTL_INVENTORY "$CLUSTERCTL" deploy
expect "history with -i" 0 "" -- "$CLUSTERCTL" history -i "$small" --state "$WORK/inventory-none"
# Commands with words after INVENTORY: with -i or the environment, those words are theirs.
expect "hostkey forget -i INV HOST" 1 "no recorded host key for gpu01" -- "$CLUSTERCTL" hostkey forget -i "$small" gpu01 --state "$WORK/inventory-forget"
expect "hostkey forget HOST with CLUSTERCTL_INVENTORY" 1 "no recorded host key for gpu01" -- env CLUSTERCTL_INVENTORY="$small" "$CLUSTERCTL" hostkey forget gpu01 --state "$WORK/inventory-forget"
expect "hostkey forget without HOST" 2 "HOST" -- "$CLUSTERCTL" hostkey forget -i "$small"
expect "hold -i INV -- COMMAND" 0 "" -- "$CLUSTERCTL" hold -i "$small" --state "$WORK/inventory-hold" -- true
expect "hold -- COMMAND with CLUSTERCTL_INVENTORY" 3 "" -- env CLUSTERCTL_INVENTORY="$small" "$CLUSTERCTL" hold --state "$WORK/inventory-hold" -- sh -c 'exit 3'
"$CLUSTERCTL" deploy --help | grep -q -- "-i,--inventory INVENTORY" && pass "deploy --help shows -i/--inventory" || fail "deploy --help lacks -i"
"$CLUSTERCTL" __generate bash | grep -q -- "--inventory" && pass "bash completion knows --inventory" || fail "bash completion lacks --inventory"
