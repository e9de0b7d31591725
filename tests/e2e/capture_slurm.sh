#!/usr/bin/env bash
# capture_slurm.sh DIR: Slurm's own output on the testbed's node01 (the
# controller), as the parsers and the slurm_accounting resource read it,
# into DIR for tests/fixtures (captured/, slurm-24.11/; their SOURCES.md
# cite the commands). Reads whichever testbed TESTBED_STATE names: the e2e
# suite's (e2e_trixie's E2E_CAPTURE_DIR) or, unset, the developer's
# (scripts/setup.sh's). The sacctmgr queries are the resource's own
# (CurrentQueries, agent/resources/slurm_accounting_current.cc; a unit test
# holds the two equal), so a capture answers what the resource asks.
set -euo pipefail
dir=${1:?usage: capture_slurm.sh DIR}
TESTBED="$(cd "$(dirname "$0")/../.." && pwd)/tests/testbed/testbed"
on01() { "$TESTBED" ssh node01 "$1"; }
mkdir -p "$dir"
version=$(on01 "sinfo --version" | awk '{print $2}')
codename=$(on01 "sed -n 's/^VERSION_CODENAME=//p' /etc/os-release")
name() { echo "$dir/$1--$version-testbed-$codename--1.$2"; }
on01 "scontrol show node --json" >"$(name scontrol-show-node-json json)"
on01 "scontrol show node" >"$(name scontrol-show-node txt)"
on01 "sinfo -ahNO nodehost:100,gres:512,gresused:512,statelong" >"$(name sinfo-N-O-gres txt)"
on01 "scontrol ping" >"$(name scontrol-ping txt)"
cluster=$(on01 "scontrol show config" | awk '/^ClusterName/ {print $3}')
show() { on01 "sacctmgr --parsable2 --noheader show $1"; }
show "qos format=Name,Priority,MaxWall,GrpTRES,MaxTRESPU,MaxTRES,MaxJobsPU,Flags,GrpTRESMins,MaxTRESPA" >"$(name sacctmgr-show-qos txt)"
show "account format=Account,Description" >"$(name sacctmgr-show-account txt)"
show "association where Cluster=$cluster format=Account,User,Partition,ParentName,Fairshare,QOS,DefaultQOS,GrpTRES,GrpTRESMins,MaxTRES" \
  >"$(name sacctmgr-show-association txt)"
show "user format=User,DefaultAccount" >"$(name sacctmgr-show-user txt)"
echo "# Slurm $version's output on node01 (cluster $cluster) kept in $dir"
