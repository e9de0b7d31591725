#!/usr/bin/env python3
"""Reads ctest's log of the last run (BUILD/Testing/Temporary/LastTest.log)
and prints one tab-separated line per test: name, seconds, outcome, checks.

checks counts what the test asserted, from its own output: the shell suites'
"ok   - " and "FAIL - " lines, doctest's assertion total, unittest's "Ran N
tests". docs/building.md compares these counts before and after a change to
the suite, so a test that silently asserts less shows.

    scripts/ctest-report.py BUILD_DIR [--table]
"""
import re
import sys


def checks_of(output):
    ok = len(re.findall(r"^ok   - ", output, re.M))
    failed = len(re.findall(r"^FAIL - ", output, re.M))
    if ok or failed:
        return f"{ok + failed} ({failed} failed)" if failed else str(ok)
    doctest = re.search(r"\[doctest\] assertions:\s*(\d+)", output)
    cases = re.search(r"\[doctest\] test cases:\s*(\d+)", output)
    if doctest:
        return f"{doctest.group(1)} assertions in {cases.group(1) if cases else '?'} test cases"
    ran = re.search(r"^Ran (\d+) tests?", output, re.M)
    if ran:
        return f"{ran.group(1)} unittest tests"
    return "-"


def tests_of(log):
    # One block per test: "N/M Testing: NAME" ... "<end of output>" ... "Test time = S sec" ... "Test Passed."
    blocks = re.split(r"^\d+/\d+ Testing: ", log, flags=re.M)[1:]
    for block in blocks:
        name = block.split("\n", 1)[0].strip()
        output = block.split("Output:", 1)[-1].split("<end of output>", 1)[0]
        seconds = re.search(r"Test time =\s*([\d.]+) sec", block)
        outcome = re.search(r"^Test (Passed|Failed|Skipped|Not Run)", block, re.M)
        result = outcome.group(1).lower() if outcome else "failed (no result: timed out?)"
        yield name, round(float(seconds.group(1))) if seconds else 0, result, checks_of(output)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        log = open(f"{sys.argv[1]}/Testing/Temporary/LastTest.log", errors="replace").read()
    except OSError as e:
        print(f"ctest-report: {e}", file=sys.stderr)
        return 1
    table = "--table" in sys.argv[2:]
    if table:
        print("| test | seconds | result | checks |\n|---|---:|---|---|")
    for name, seconds, result, checks in tests_of(log):
        print(f"| {name} | {seconds} | {result} | {checks} |" if table else f"{name}\t{seconds}\t{result}\t{checks}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
