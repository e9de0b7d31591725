#!/usr/bin/env bash
# The aarch64 node programs under qemu-user (cmake/Aarch64NodePrograms.cmake):
#  1. the node programs' unit tests built for aarch64 (the agent protocol,
#     request handler, facts and health tests: tests/CMakeLists.txt);
#  2. the shipped clusterctl-agent-aarch64 speaks the protocol: its hello
#     and a facts request over stdin/stdout report the aarch64 it runs as;
#  3. the shipped clusterctl-health-aarch64 reads a configuration and
#     answers as the x86_64 build does, and names one it cannot read.
# qemu runs explicitly (qemu-aarch64-static or qemu-aarch64 from
# scripts/install-deps.sh), so binfmt_misc need not be mounted or registered.
#   tests/aarch64_node_test.sh BUILD_DIR NODE_UNIT_TESTS
set -u
build=$1 unit_tests=$2
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64) ||
  { echo "skip - no qemu-aarch64 (scripts/install-deps.sh installs qemu-user-static)"; exit 77; }
failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$unit_tests" ] || { echo "FAIL - no $unit_tests (scripts/build.sh aarch64_node_unit_tests)"; exit 1; }
file_arch=$(od -An -tu2 -j18 -N2 "$unit_tests" | tr -d ' ')
[ "$file_arch" = 183 ] && pass "the node tests are an aarch64 program (ELF e_machine 183)" ||
  fail "the node tests' ELF e_machine is $file_arch, not 183 (aarch64)"
started=$SECONDS
if "$qemu" "$unit_tests" >"$work/unit.txt" 2>&1; then
  pass "node unit tests under $(basename "$qemu"): $(grep -E '^\[doctest\] (test cases|assertions)' "$work/unit.txt" | tr -s ' ' | tr '\n' ';')"
else
  fail "node unit tests under $(basename "$qemu"):"; tail -40 "$work/unit.txt"
fi
echo "# node unit tests under emulation: $((SECONDS - started)) s"

# One facts request after the hello; end of input then ends the session.
python3 - "$qemu" "$build/clusterctl-agent-aarch64" >"$work/agent.txt" 2>&1 <<'PY'
import json, struct, subprocess, sys
def frame(header):
    data = json.dumps(header).encode()
    return struct.pack(">II", len(data), 0) + data
agent = subprocess.run(sys.argv[1:], input=frame({"type": "facts", "id": 1}), capture_output=True, timeout=120)
out = agent.stdout
preamble = b"\nCLUSTERCTL-AGENT/"
assert out.startswith(preamble), out[:80]
out = out[out.index(b"\n", 1) + 1:]
headers = []
while out:
    hlen, blen = struct.unpack(">II", out[:8])
    headers.append(json.loads(out[8:8 + hlen]))
    out = out[8 + hlen + blen:]
print("exit", agent.returncode)
print("hello arch", headers[0].get("arch"))
print("facts kernel.arch", headers[1].get("facts", {}).get("kernel", {}).get("arch"))
PY
grep -qx 'hello arch aarch64' "$work/agent.txt" && pass "clusterctl-agent-aarch64's hello says aarch64" ||
  fail "clusterctl-agent-aarch64's hello: $(cat "$work/agent.txt")"
grep -qx 'facts kernel.arch aarch64' "$work/agent.txt" && pass "its facts reply says kernel.arch aarch64" ||
  fail "clusterctl-agent-aarch64's facts: $(cat "$work/agent.txt")"
grep -qx 'exit 0' "$work/agent.txt" && pass "it ends with its input, exit 0" ||
  fail "clusterctl-agent-aarch64's exit: $(cat "$work/agent.txt")"

printf '{"version": 1, "node": "arm01", "checks": [], "vars": {}, "textfile": "%s/health.prom"}\n' "$work" >"$work/health.json"
# The same configuration on this machine (no Slurm here: the health program
# says so): the aarch64 build answers as the x86_64 build does.
"$qemu" "$build/clusterctl-health-aarch64" --config "$work/health.json" --dry-run >"$work/health.txt" 2>&1
echo "exit $?" >>"$work/health.txt"
"$build/clusterctl-health" --config "$work/health.json" --dry-run >"$work/health-x86.txt" 2>&1
echo "exit $?" >>"$work/health-x86.txt"
cmp -s "$work/health.txt" "$work/health-x86.txt" &&
  pass "clusterctl-health-aarch64 --dry-run answers as the x86_64 build: $(tr '\n' ' ' <"$work/health.txt")" ||
  fail "clusterctl-health-aarch64 --dry-run: $(cat "$work/health.txt") / x86_64: $(cat "$work/health-x86.txt")"
"$qemu" "$build/clusterctl-health-aarch64" --config "$work/missing.json" >"$work/missing.txt" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "cannot read $work/missing.json" "$work/missing.txt" &&
  pass "clusterctl-health-aarch64 names a configuration it cannot read" ||
  fail "clusterctl-health-aarch64 with a missing configuration exited $rc: $(cat "$work/missing.txt")"

[ "$failures" -eq 0 ] && echo "all aarch64 node tests passed" || { echo "$failures aarch64 node test(s) failed"; exit 1; }
