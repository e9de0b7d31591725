#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, with clang) and runs each for a bounded
# time on a copy of its seed corpus (fuzz/corpus/<target>).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 30 s, every target)
#   scripts/fuzz.sh --build-only                         (build every target, run none)
#
# A crash, a leak, undefined behaviour, a timeout (10 s per input) or more
# than 2 GiB of memory fails the run; the input that did it is kept under
# build-fuzz/artifacts/TARGET/ and printed. Make it a regression seed in
# fuzz/corpus/TARGET/ and fix the code. The figures of longer runs are in
# docs/reliability.md.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_ONLY=0
if [ "${1:-}" = --build-only ]; then BUILD_ONLY=1; shift; fi
SECONDS_PER_TARGET=${1:-30}
shift $(( $# > 0 ? 1 : 0 ))
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(inventory ini_import role_file template agent_frames controller_frames facts_parsers validate_parsers http_body)

if [ ! -f build-fuzz/CMakeCache.txt ]; then
  cmake -S fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ >/dev/null || exit 1
fi
cmake --build build-fuzz -j "${JOBS:-$(nproc)}" >/dev/null || { echo "fuzz: build failed"; cmake --build build-fuzz -j1 2>&1 | tail -20; exit 1; }
[ "$BUILD_ONLY" -eq 1 ] && exit 0

# fuzz_target TARGET: runs one target for SECONDS_PER_TARGET on its own copy
# of the corpus; prints one line (and the finding's summary); exit 1 on a finding.
fuzz_target() {
  local target=$1 work start rc runs
  work=$(mktemp -d /tmp/clusterctl-fuzz-XXXXXX)
  cp -r "fuzz/corpus/$target" "$work/corpus"
  mkdir -p "build-fuzz/artifacts/$target"
  start=$(date +%s)
  "build-fuzz/${target}_fuzz" "$work/corpus" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$target/" >"$work/log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$')
  if [ $rc -eq 0 ]; then
    echo "fuzz: $target: ${runs:-?} inputs in $(( $(date +%s) - start )) s, corpus $(ls "$work/corpus" | wc -l) files: ok"
  else
    echo "fuzz: $target: FAILED (exit $rc); the input: $(ls -t build-fuzz/artifacts/"$target"/* 2>/dev/null | head -1)"
    grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$work/log" | head -20
  fi
  rm -rf "$work"
  return $(( rc != 0 ))
}

# One target per core at a time (JOBS, default every core): each target
# still gets SECONDS_PER_TARGET of a whole core, as when they ran one by one.
# Each target's lines are printed together when it ends.
failed=0
running=0
results=$(mktemp -d /tmp/clusterctl-fuzz-results-XXXXXX)
for target in "${TARGETS[@]}"; do
  if [ "$running" -ge "${JOBS:-$(nproc)}" ]; then
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
  fi
  { fuzz_target "$target" >"$results/$target" 2>&1; rc=$?; cat "$results/$target"; exit $rc; } &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=$((failed + 1))
  running=$((running - 1))
done
rm -rf "$results"
exit $(( failed > 0 ))
