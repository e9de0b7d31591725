# A list option takes one word per occurrence (commas for more), so the
# INVENTORY after it is never read as one of its items now that INVENTORY
# may also come from -i or CLUSTERCTL_INVENTORY.
expect "--roles before INVENTORY leaves INVENTORY alone" 2 "unknown role 'chrny' (did you mean 'chrony'?)" -- \
  "$CLUSTERCTL" plan --roles chrny "$SRC/inventory/examples/small.yaml" --state "$WORK/lists-state"
expect "--checks before INVENTORY leaves INVENTORY alone" 2 "unknown check 'gpu.eccs'" -- \
  "$CLUSTERCTL" validate --checks gpu.eccs "$SRC/inventory/examples/small.yaml"
expect "-e before INVENTORY leaves INVENTORY alone" 2 "unknown variable 'slurm_acounting'" -- \
  "$CLUSTERCTL" plan -e slurm_acounting=false "$SRC/inventory/examples/small.yaml" --state "$WORK/lists-state"
[ -e "$WORK/lists-state" ] && fail "a refused plan created a state" || pass "the refused plans created no state"
