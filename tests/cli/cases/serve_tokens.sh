# The daemon's scoped tokens (issue 47, item 4): one per scope, printed by
# --print-token --scope, rotated alone by --rotate-token.
small="$SRC/inventory/examples/small.yaml"
tokens="$WORK/tokens-state"
admin=$("$CLUSTERCTL" serve "$small" --print-token --state "$tokens" 2>/dev/null)
read=$("$CLUSTERCTL" serve "$small" --print-token --scope read --state "$tokens" 2>/dev/null)
metrics=$("$CLUSTERCTL" serve "$small" --print-token --scope metrics --state "$tokens" 2>/dev/null)
[ ${#admin} -eq 43 ] && [ ${#read} -eq 43 ] && [ ${#metrics} -eq 43 ] && [ "$admin" != "$read" ] && [ "$read" != "$metrics" ] &&
  [ "$(cat "$tokens/secrets/daemon_token")" = "$admin" ] && [ "$(cat "$tokens/secrets/daemon_metrics_token")" = "$metrics" ] &&
  pass "serve --print-token --scope prints each scope's own token, kept in secrets/" || fail "serve tokens: '$admin' '$read' '$metrics'"
rotated=$("$CLUSTERCTL" serve "$small" --rotate-token metrics --state "$tokens" 2>/dev/null)
[ ${#rotated} -eq 43 ] && [ "$rotated" != "$metrics" ] &&
  [ "$("$CLUSTERCTL" serve "$small" --print-token --scope metrics --state "$tokens" 2>/dev/null)" = "$rotated" ] &&
  [ "$("$CLUSTERCTL" serve "$small" --print-token --state "$tokens" 2>/dev/null)" = "$admin" ] &&
  [ "$("$CLUSTERCTL" serve "$small" --print-token --scope read --state "$tokens" 2>/dev/null)" = "$read" ] &&
  pass "serve --rotate-token metrics replaces that token alone" || fail "serve --rotate-token metrics: '$rotated'"
expect "serve --scope of an unknown scope is a usage error" 2 "root" -- \
  "$CLUSTERCTL" serve "$small" --print-token --scope root --state "$tokens"
