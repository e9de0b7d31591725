# docs/quickstart.md (issue 53, item 1): its `scratch` blocks run as
# written, in order, in one empty directory (with the DeepOps example as the
# hosts.ini its import reads), clusterctl first on PATH; its `node` blocks
# parse (they change a node's users and sudo: not run here). The
# `controller` blocks run on the testbed in tests/e2e/validate_test.sh.
mkdir -p "$WORK/quickstart"
cp "$SRC/inventory/examples/deepops-inventory.ini" "$WORK/quickstart/hosts.ini"
blocks=$("$SRC/tests/quickstart_blocks.sh" scratch)
out=$(cd "$WORK/quickstart" && PATH=$(dirname "$CLUSTERCTL"):$PATH bash -euo pipefail -c "$blocks" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q "site.yaml: ok: cluster 'lab', 5 hosts" <<<"$out" && [ -s "$WORK/quickstart/imported.yaml" ]; then
  pass "docs/quickstart.md: the scratch blocks run as written"
else
  fail "docs/quickstart.md's scratch blocks: exit $rc; got: $out"
fi
"$SRC/tests/quickstart_blocks.sh" node >"$WORK/quickstart/node.sh"
bash -n "$WORK/quickstart/node.sh" && pass "docs/quickstart.md: the node blocks parse" || fail "docs/quickstart.md: a node block does not parse"
"$SRC/tests/quickstart_blocks.sh" controller | grep -v '^#' | grep -vqE '^clusterctl [a-z]+( [a-z]+)? site\.yaml( |$)' &&
  fail "docs/quickstart.md: a controller line that is not 'clusterctl COMMAND site.yaml ...'" ||
  pass "docs/quickstart.md: every controller line is a clusterctl command on site.yaml"
