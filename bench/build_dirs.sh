# shellcheck shell=bash
# Sourced by the benchmarks that time several clusterctl builds
# (bench/noop-verify.sh). Touches no testbed: source it and check the builds
# before bench/ansible/lib.sh, whose exit trap takes the benchmark testbed down.

# refuse_roleless_builds DIR...: exit 2 unless each DIR holds a clusterctl
# that finds its built-in roles. A build reads roles/ and templates/ from
# DIR/../share/clusterctl or DIR/.. (Catalog::DefaultSources), so a build
# copied out of its checkout finds none and still exits 0, after one
# warning, deploying nothing: its no-op and --verify times are those of an
# empty catalog (facts only), not of the stack.
refuse_roleless_builds() {
  local dir bin warning
  for dir in "$@"; do
    bin="$dir/clusterctl"
    if [ ! -x "$bin" ]; then
      echo "$dir: no clusterctl build there" >&2
      exit 2
    fi
    warning=$("$bin" roles 2>&1 >/dev/null | grep -m1 'no built-in roles found')
    if [ -n "$warning" ]; then
      echo "$dir: its clusterctl finds no built-in roles, so it would time an empty deploy ($warning). Give a build inside its own checkout (git worktree add DIR2 COMMIT; build there; pass DIR2/build), or put that commit's roles/ and templates/ beside the copied directory." >&2
      exit 2
    fi
  done
}
