#!/usr/bin/env bash
# The re-run costs of the full stack, for one or more clusterctl builds on the
# same converged testbed: a no-op deploy (contacts no node) and a deploy
# --verify (checks every step on every node), RUNS times each, medians.
#
#   sudo bench/noop-verify.sh [NODES] [RUNS] [DIR...]
#
# DIR: a directory holding a clusterctl build (clusterctl + clusterctl-agent)
# that finds its own commit's roles: the build/ of another checkout (git
# worktree add), not a copy of build/ taken elsewhere, which finds no roles
# and would time an empty deploy (refused: bench/build_dirs.sh); default
# build/. The testbed is the benchmarks' own (bench/ansible/lib.sh) and goes
# down at exit.
set -uo pipefail
cd "$(dirname "$0")/.."
NODES=${1:-3}
RUNS=${2:-9}
shift $(( $# >= 2 ? 2 : $# ))
DIRS=("$@")
[ ${#DIRS[@]} -eq 0 ] && DIRS=(build)
source bench/build_dirs.sh
refuse_roleless_builds build "${DIRS[@]}"  # build/ deploys the stack first; before lib.sh: a refusal touches no testbed
source bench/ansible/lib.sh

fresh_testbed --gpus 2
"$CLUSTERCTL" deploy "$INV" >"$WORK/first.out" 2>&1 || { tail -20 "$WORK/first.out"; exit 1; }
"$CLUSTERCTL" deploy "$INV" >/dev/null 2>&1
printf '%-40s %10s %12s\n' "build ($NODES nodes, median of $RUNS)" "no-op ms" "--verify ms"
for dir in "${DIRS[@]}"; do
  bin=$(realpath "$dir")/clusterctl
  noop=() verify=()
  for _ in $(seq "$RUNS"); do
    read -r ms rc < <(timed "$bin" deploy "$INV")
    [ "$rc" -eq 0 ] || { echo "$bin: no-op deploy exit $rc"; tail "$WORK/last.out"; exit 1; }
    noop+=("$ms")
    read -r ms rc < <(timed "$bin" deploy --verify "$INV")
    [ "$rc" -eq 0 ] || { echo "$bin: --verify exit $rc"; tail "$WORK/last.out"; exit 1; }
    verify+=("$ms")
  done
  printf '%-40s %10s %12s\n' "$dir" "$(printf '%s\n' "${noop[@]}" | median)" "$(printf '%s\n' "${verify[@]}" | median)"
done
