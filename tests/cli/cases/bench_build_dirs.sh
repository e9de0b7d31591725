# bench/build_dirs.sh: a benchmark refuses a build that finds no built-in
# roles (a build/ copied out of its checkout times an empty deploy: the
# 2026-11-29 no-op/--verify comparison's c9f2cc7 row was one), and takes a
# build in its checkout. Nothing here touches a testbed.
mkdir -p "$WORK/bench-copied" "$WORK/bench-empty"
cp "$CLUSTERCTL" "$WORK/bench-copied/clusterctl"
refuse_builds() {
  env -u CLUSTERCTL_DATA_DIR bash -c 'source "$1/bench/build_dirs.sh"; shift; refuse_roleless_builds "$@"' _ "$SRC" "$@"
}
expect "bench: a copied build that finds no roles is refused, naming it" 2 \
  "$WORK/bench-copied: its clusterctl finds no built-in roles" -- refuse_builds "$(dirname "$CLUSTERCTL")" "$WORK/bench-copied"
expect "bench: a directory without a build is refused" 2 "$WORK/bench-empty: no clusterctl build there" -- \
  refuse_builds "$WORK/bench-empty"
expect "bench: the build in its checkout is taken" 0 "" -- refuse_builds "$(dirname "$CLUSTERCTL")"
rm -rf "$WORK/bench-copied"
