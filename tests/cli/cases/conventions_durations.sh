# Duration-valued flags take units (90, 60s, 5m, 1h30m); anything else is a usage error.
small="$SRC/inventory/examples/small.yaml"
expect "duration with a unit is accepted" 0 "" -- "$CLUSTERCTL" serve "$small" --verify-interval 5m --stop-grace 30s --print-token --state "$WORK/durations"
expect "plain seconds still accepted" 0 "" -- "$CLUSTERCTL" serve "$small" --verify-interval 90 --print-token --state "$WORK/durations"
expect "unknown unit is a usage error" 2 "unknown unit 'x'" -- "$CLUSTERCTL" serve "$small" --verify-interval 5x --print-token --state "$WORK/durations"
expect "negative duration is a usage error" 2 "has a sign" -- "$CLUSTERCTL" run "$small" --timeout -5 -- true
expect "overflowing duration is a usage error" 2 "too long" -- "$CLUSTERCTL" validate "$small" --deadline 99999999d
expect "duration out of range is a usage error" 2 "--deadline" -- "$CLUSTERCTL" validate "$small" --deadline 5s
expect "empty duration is a usage error" 2 "empty" -- "$CLUSTERCTL" run "$small" --timeout '' -- true
"$CLUSTERCTL" serve --help | grep -q -- "--verify-interval DURATION" && pass "serve --help names DURATION" || fail "serve --help lacks DURATION"
expect "out of range names the range" 2 "from 10s to 1d" -- "$CLUSTERCTL" validate "$small" --deadline 5s
"$CLUSTERCTL" run --help | grep -q -- "--timeout DURATION=10m" && pass "run --help shows the default timeout as a duration" || fail "run --help: $("$CLUSTERCTL" run --help | grep -- --timeout)"
expect "serve --slurm-interval takes a duration" 0 "" -- "$CLUSTERCTL" serve "$small" --slurm-interval 2m --print-token --state "$WORK/durations"
expect "serve --slurm-interval under 10 s is a usage error naming the range" 2 "from 10s to 1h" -- "$CLUSTERCTL" serve "$small" --slurm-interval 5 --print-token --state "$WORK/durations"
