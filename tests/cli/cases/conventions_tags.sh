# --tags/--skip-tags on deploy and plan: tags come from the catalog.
small="$SRC/inventory/examples/small.yaml"
expect "an unknown tag is a usage error with a suggestion" 2 "unknown tag 'slrum' (did you mean 'slurm'?)" -- "$CLUSTERCTL" plan "$small" --tags slrum --state "$WORK/tags"
expect "an unknown skipped tag is a usage error" 2 "--skip-tags" -- "$CLUSTERCTL" deploy "$small" --skip-tags nope --state "$WORK/tags"
