#!/usr/bin/env bash
# Structure rules a grep can keep; the ctest test `structure` runs this (a
# fraction of a second). Prints "ok   - RULE" per rule kept and "FAIL - RULE"
# with every line that breaks one; exits 1 on any failure.
#
#  1. Time comes from the Clock (common/clock.h): the run's where the code has
#     one, else a SystemClock. No other direct clock read in the project's
#     code (*_test.cc are not searched): no `X::now()` (steady_clock,
#     system_clock or any alias of them), time(nullptr), clock_gettime(),
#     gettimeofday(), outside common/clock.*.
#  2. Outcomes are enums once read from the state. The words the state
#     stores for them (runs.status, hosts.status, steps.status,
#     validations.result and scope) meet their enums only in the row mapping
#     (controller/state/stored_words.cc) and the schema: elsewhere an outcome
#     field (`.status`, `.result`, `.scope`, `.outcome`) is never compared
#     with a stored word or an enum's word (ToString), and no SQL outside
#     controller/state/ names a stored word.
#
# The patterns are tested first on lines they must and must not match, so a
# pattern that stopped matching anything fails here rather than passing.
set -uo pipefail
cd "$(dirname "$0")/.."

dirs=(controller agent common health inventory)
failed=0

clock_read='::now[[:space:]]*\(|(^|[^[:alnum:]_.>])time[[:space:]]*\([[:space:]]*(nullptr|NULL|0)?[[:space:]]*\)|clock_gettime|gettimeofday'
words="never|ok|failed|unreachable|removed|pass|fail|skip|running|interrupted|changed|skipped|cluster|node|pair"
field='(\.|->)(status|result|scope|outcome)\b'
word="(\"(${words})\"|ToString\()"
compared="${field}[[:space:]]*[!=]=[[:space:]]*${word}|${word}[^;]*[!=]=[[:space:]]*[[:alnum:]_]+${field}"
sql="(status|result|scope)[[:space:]]*(=|!=|<>|IN)[[:space:]]*\(?[[:space:]]*'(${words})'"

# expect PATTERN match|miss LINE: the self-test of a pattern.
expect() {
  local got=miss
  grep -qE -- "$1" <<<"$3" && got=match
  [ "$got" = "$2" ] && return 0
  echo "FAIL - the pattern should $2: $3"
  failed=1
}

self_test() {
  local before=$failed
  failed=0
  expect "$clock_read" match 'auto start = std::chrono::steady_clock::now();'
  expect "$clock_read" match 'const auto due = Clock::now() + delay;'
  expect "$clock_read" match 'return system_clock::now().time_since_epoch();'
  expect "$clock_read" match 'stamp = std::time(nullptr);'
  expect "$clock_read" match '::clock_gettime(CLOCK_MONOTONIC, &ts);'
  expect "$clock_read" miss 'auto start = clock.Monotonic();'
  expect "$clock_read" miss 'request.timeout = runtime(limit);'
  expect "$clock_read" miss 'int64_t now = clock_->NowMs();'
  expect "$compared" match 'if (r.status == "removed") continue;'
  expect "$compared" match 'if (v.result != "fail") continue;'
  expect "$compared" match 'r->status == ToString(RunStatus::kOk)'
  expect "$compared" match 'if ("pass" == check.result) ++passed;'
  expect "$compared" miss 'if (r.status == HostStatus::kRemoved) continue;'
  expect "$compared" miss 'if (test.result == "Pass") ++passed;'  # dcgmi's own word
  expect "$compared" miss 'if (p.state == "ACTIVE") ib_gbps += p.rate_gbps;'
  expect "$compared" miss 'if (text == ToString(scope)) return scope;'
  expect "$sql" match '"UPDATE hosts SET status = '"'removed'"' WHERE name = ?"'
  expect "$sql" match "\"SELECT name FROM hosts WHERE status IN ('ok', 'failed')\""
  expect "$sql" miss '"UPDATE hosts SET status = ?4 WHERE name = ?3"'
  [ "$failed" = 0 ] && echo "ok   - the patterns match the lines they must and miss the others"
  [ "$before" = 1 ] && failed=1
}

# check RULE PATTERN [EXCLUDED]: the project's lines that match PATTERN, in
# files not matching the extended regex EXCLUDED.
check() {
  local lines
  lines=$(grep -rnE --include='*.cc' --include='*.h' -- "$2" "${dirs[@]}" | grep -vE '^[^:]*_test\.cc:' |
          { [ -n "${3:-}" ] && grep -vE "^(${3}):" || cat; })
  if [ -z "$lines" ]; then
    echo "ok   - $1"
  else
    echo "FAIL - $1:"
    sed 's/^/    /' <<<"$lines"
    failed=1
  fi
}

self_test
check "no clock read outside common/clock (use a Clock: the run's, or a SystemClock)" "$clock_read" 'common/clock\.(h|cc)'
check "no outcome compared as a string (compare its enum; controller/state/stored_words maps the stored words)" "$compared"
check "no stored word in SQL outside controller/state/" "$sql" 'controller/state/[^:]*'
exit $failed
