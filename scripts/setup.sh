#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to the main job: installs the
# dependencies, builds clusterctl, and runs it on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --testbed
scripts/build.sh
EXAMPLE=inventory/examples/small.yaml
echo
echo "== clusterctl inventory check $EXAMPLE"
build/clusterctl inventory check "$EXAMPLE"
echo
echo "== clusterctl inventory show $EXAMPLE"
build/clusterctl inventory show "$EXAMPLE"
echo
echo "== clusterctl status $EXAMPLE"
build/clusterctl status --state "$(mktemp -d)/state" "$EXAMPLE"
