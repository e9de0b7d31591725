#!/usr/bin/env bash
# The heavier GPU suite (not in CI: it downloads about 400 MB of Debian
# packages through the testbed's apt proxy and compiles the NVIDIA kernel
# module; docs/building.md): the nvidia-driver role's `distro` source with
# Debian's real packages on a 2-node testbed (node02 with one simulated
# GPU).
#   - node02 gets what a Debian 12 GPU node boots: Debian's kernel and its
#     headers (linux-image-amd64, linux-headers-amd64), in place of the
#     testbed's placeholder kernel
#   - the deploy enables contrib/non-free/non-free-firmware, installs
#     Debian's nvidia-kernel-dkms, nvidia-smi and libcuda1 (branch 535)
#     on node02 only, DKMS really compiles the module for Debian's kernel
#     (and skips the machine's running kernel, which has no headers: the
#     containers run it), blacklists nouveau, reboots node02 once
#   - the second deploy changes nothing and reboots nothing
#   - validate's gpu.driver fails: the loaded module is the testbed's
#     simulation, never a pass
# nvidia_persistenced is off here: Debian's real daemon needs a real GPU.
#
#   sudo tests/heavy/gpu_distro_test.sh
source "$(dirname "$0")/../e2e/lib.sh"
require_root_or_skip
CLUSTERCTL="$E2E_ROOT/build/clusterctl"
WORK=$(mktemp -d /tmp/clusterctl-heavy-gpu-XXXXXX)
trap 'tb down >/dev/null 2>&1; rm -rf "$WORK"' EXIT
boots() { local n; n=$(grep -c "status 133" "$TESTBED_STATE/nodes/$1/exits.log" 2>/dev/null); echo "${n:-0}"; }
package_version() { tb exec "$1" dpkg-query -W -f '${Version}' "$2" 2>/dev/null; }

tb down >/dev/null 2>&1
tb_inventory=$(tb up 2 --gpus 1 2>/dev/null) || { echo "testbed up failed"; exit 1; }
cp -r "$(dirname "$tb_inventory")/ssh" "$WORK/ssh"
python3 - "$tb_inventory" "$WORK/inventory.yaml" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"\n  nvidia_driver_[a-z_]+: .*", "", text)
text = text.replace("\nhosts:\n", """
  # Debian's own driver, branch 535 (the newest of bookworm and its security updates).
  nvidia_driver_source: distro
  nvidia_driver_branch: '535'
  # Debian's real nvidia-persistenced cannot start without a real GPU.
  nvidia_persistenced: false
hosts:
""", 1)
open(sys.argv[2], "w").write(text)
EOF

start=$(date +%s)
"$CLUSTERCTL" run "$WORK/inventory.yaml" --limit node02 -- sh -c \
  'apt-get purge -y -q linux-image-6.1.0-99-simulated && apt-get update -q && apt-get install -y -q linux-image-amd64 linux-headers-amd64' \
  >"$WORK/kernel.out" 2>&1
kernel=$(tb exec node02 sh -c 'ls /boot | sed -n "s/^vmlinuz-//p" | sort -V | tail -n 1')
echo "# node02 boots Debian's kernel $kernel next ($(seconds_since "$start") s)"
check "node02 has Debian's kernel and headers" tb exec node02 test -f "/lib/modules/$kernel/build/Makefile"

start=$(date +%s)
"$CLUSTERCTL" deploy "$WORK/inventory.yaml" --json >"$WORK/first.json" 2>"$WORK/first.err"
rc=$?
echo "# first deploy: exit $rc in $(seconds_since "$start") s"
check "the distro deploy converges" test "$rc" -eq 0
[ "$rc" -eq 0 ] || { tail -30 "$WORK/first.err"; grep '"status":"failed"' "$WORK/first.json" | tail -3; }
for package in nvidia-kernel-dkms nvidia-smi libcuda1; do
  version=$(package_version node02 "$package")
  check "node02 has Debian's $package 535 ($version)" sh -c "case '$version' in 535.*) true ;; *) false ;; esac"
done
check "node02 has contrib and non-free enabled" \
  tb exec node02 grep -q 'contrib non-free non-free-firmware' /etc/apt/sources.list.d/clusterctl-debian-nonfree.list
check "node01 (no GPU) has no NVIDIA package" sh -c "! $TESTBED exec node01 dpkg -l 'nvidia*' 2>/dev/null | grep -q '^ii'"
check "node02 blacklists nouveau" tb exec node02 grep -qx 'blacklist nouveau' /etc/modprobe.d/clusterctl-blacklist-nouveau.conf
# Debian's nvidia-kernel-dkms names the module file nvidia-current.ko.
module=$(tb exec node02 sh -c "find /lib/modules/$kernel -name 'nvidia-current.ko*' | head -n 1")
built=$(tb exec node02 modinfo -F version "$module" 2>/dev/null)
echo "# DKMS built $module (version $built); dkms status:"
tb exec node02 dkms status 2>&1 | sed 's/^/#   /'
echo "# its modules.dep (Debian's file names, which facts.gpudirect reads):"
tb exec node02 grep nvidia-current "/lib/modules/$kernel/modules.dep" 2>&1 | sed 's/^/#   /'
echo "# the running kernel $(uname -r): headers $(tb exec node02 test -d "/lib/modules/$(uname -r)/build" && echo present || echo absent), DKMS: $(tb exec node02 dkms status -k "$(uname -r)" 2>&1 | head -n 1)"
check "DKMS compiled a real nvidia-current.ko for $kernel (modinfo: $built)" sh -c "case '$built' in 535.*) true ;; *) false ;; esac"
check "no module for the running kernel $(uname -r) (no headers in a container)" \
  sh -c "! $TESTBED exec node02 test -d /lib/modules/$(uname -r)/updates/dkms"
check "node02 rebooted once (got $(boots node02))" test "$(boots node02)" = 1
loaded=$(tb exec node02 cat /sys/module/nvidia/version 2>/dev/null)
check "node02's simulated loaded module is the built one ($loaded)" test -n "$built" -a "$loaded" = "$built"

"$CLUSTERCTL" deploy "$WORK/inventory.yaml" --json >"$WORK/second.json" 2>&1
rc=$?
check "the second deploy converges" test "$rc" -eq 0
check "the second deploy changes nothing (got: $(changed_steps "$WORK/second.json" node02))" \
  test -z "$(changed_steps "$WORK/second.json" node01)$(changed_steps "$WORK/second.json" node02)"
check "the second deploy reboots nothing" test "$(boots node02)" = 1

"$CLUSTERCTL" validate "$WORK/inventory.yaml" --checks gpu.driver --json >"$WORK/validate.json" 2>&1
check "validate's gpu.driver fails on the simulated module" \
  python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1]))["results"] if x["check"]=="gpu.driver" and x["subject"]=="node02"]; sys.exit(0 if r and r[0]["result"]=="fail" else 1)' "$WORK/validate.json"

finish
